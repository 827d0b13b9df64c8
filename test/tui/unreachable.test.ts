// A local server that stopped: the chat says once that it is unreachable and what to check, then
// retries quietly with a countdown in the status line (the retry table unchanged: 5 retries, backoff).
import assert from "node:assert/strict";
import { test } from "node:test";
import { closedPort } from "../support/closed-port.ts";
import { keys } from "../support/pty.ts";
import { startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

test("a stopped server is said to be unreachable once, and the status line counts down the retries", async (t) => {
  const nex = await startNexTui([]);
  t.after(() => nex.close());
  const host = new URL(nex.stub.url).host;
  await nex.stub.close();
  // Held from now on: the closed port must not be given to another test's server meanwhile.
  await closedPort(Number(new URL(nex.stub.url).port));
  nex.pty.write(`hello${keys.enter}`);
  await nex.pty.waitFor(`${host} is unreachable`);
  // Three failed attempts: the countdown moved on without a new line for each.
  await nex.pty.waitFor(new RegExp(`${host} unreachable, retry 3/5 in \\d+s`));
  const flat = nex.pty.history().replace(/[│\n]/g, " ").replace(/\s+/g, " ");
  assert.equal(
    flat.split(`${host} is unreachable`).length - 1,
    1,
    "the unreachable line is said once",
  );
  assert.match(flat, /Check that the server is running and the base URL is right/);
  assert.doesNotMatch(flat, /retry 2\/5 in \d+s —/, "no line per retry");
  nex.pty.write(keys.esc);
  await nex.pty.waitFor("Interrupted");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
});

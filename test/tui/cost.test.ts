// Tokens and cost of the chat, in /status and at exit, when the model's price is known (here from
// the config, which overrides nex's list prices); an unknown price is said, never guessed.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

test("/status and the exit show the chat's tokens and cost at the configured price", async (t) => {
  const nex = await startNexTui([openaiText("Priced.", { usage: { input: 3000, output: 500 } })], {
    config: { models: { m: { price: { input: 100, output: 1000 } } } },
  });
  t.after(() => nex.close());
  nex.pty.write(`hello${keys.enter}`);
  await nex.pty.waitFor("Priced.");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  nex.pty.write(`/status${keys.enter}`);
  await nex.pty.waitFor(
    /tokens\s+this chat: 3,000 in, 500 out · \$0\.8 at \$100\/\$1000 per million/,
  );
  nex.pty.write(`/exit${keys.enter}`);
  await nex.pty.waitFor(/This chat: 3,000 in, 500 out · \$0\.8/);
});

test("/status says when no price is known for the model", async (t) => {
  const nex = await startNexTui([openaiText("Free?", { usage: { input: 3000, output: 500 } })]);
  t.after(() => nex.close());
  nex.pty.write(`hello${keys.enter}`);
  await nex.pty.waitFor("Free?");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  nex.pty.write(`/status${keys.enter}`);
  await nex.pty.waitFor("no price known for m");
  assert.doesNotMatch(nex.pty.history(), /\$\d/);
});

// The TUI over the real NexSession, agent loop and OpenAI client (no CLI, no tools) in a pseudo-terminal,
// against the stub endpoint: the real event flows of failures, retries and interrupts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { cliScenarios } from "./cli-scenarios.ts";
import { saveScreen } from "./tui-harness.ts";

function flat(screen: string): string {
  return screen.replace(/[│\n]/g, " ").replace(/\s+/g, " ");
}

test("runtime: a 400 storm shows the error in full, the spinner is gone, one request was sent", async (t) => {
  const { nex, screen } = await cliScenarios.storm400("runtime");
  t.after(() => nex.close());
  t.diagnostic(`final screen (${saveScreen(nex.dir, "storm400", screen)}):\n${screen}`);
  assert.match(
    flat(screen),
    /maximum context length is 32768 tokens\. However, you requested 250112 tokens\./,
  );
  await sleep(1500);
  assert.equal(nex.chatRequests().length, 1, "a 400 is never sent again");
});

test("runtime: a 429 shows the countdown, then the answer", async (t) => {
  const { nex, screen } = await cliScenarios.retry429("runtime");
  t.after(() => nex.close());
  t.diagnostic(`final screen (${saveScreen(nex.dir, "retry429", screen)}):\n${screen}`);
  assert.match(screen, /Recovered after the rate limit\./);
  assert.equal(nex.chatRequests().length, 2);
});

test("runtime: Ctrl-C during a stream clears the spinner within a second, sends nothing more", async (t) => {
  const { nex, screen } = await cliScenarios.interrupt("runtime");
  t.after(() => nex.close());
  t.diagnostic(`final screen (${saveScreen(nex.dir, "interrupt", screen)}):\n${screen}`);
  await sleep(1500);
  assert.equal(nex.chatRequests().length, 1, "no request after the interrupt");
  assert.match(nex.pty.screen(), /Ask nex/, "the interrupt does not exit nex");
});

// The wire never carries two user messages in a row: not after an interrupted answer (kept, marked),
// not after a request that failed (its prompt had no answer), not after a [nex] note such as an undo.
// Asserted on the request bodies the stub endpoint received from the real chat.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, status } from "../support/stub-scripts.ts";
import { type NexTui, startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

interface WireMessage {
  role: string;
  content: unknown;
}

function conversation(nex: NexTui, index: number): WireMessage[] {
  const request = nex.chatRequests()[index];
  assert.ok(request, `request ${index + 1} was sent`);
  return (request.body as { messages: WireMessage[] }).messages.filter((m) => m.role !== "system");
}

function assertAlternates(messages: WireMessage[]): void {
  for (let i = 1; i < messages.length; i++) {
    assert.ok(
      !(messages[i]?.role === "user" && messages[i - 1]?.role === "user"),
      `two user messages in a row at ${i}: ${JSON.stringify(messages.map((m) => m.role))}`,
    );
  }
}

test("after a request fails, the next prompt goes with the unanswered one as one user turn", async (t) => {
  const nex = await startNexTui([
    status(400, { body: { error: { message: "stub: this request is refused" } } }),
    openaiText("Both seen."),
  ]);
  t.after(() => nex.close());
  nex.pty.write(`first question${keys.enter}`);
  await nex.pty.waitFor("Request failed");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  nex.pty.write(`second question${keys.enter}`);
  await nex.pty.waitFor("Both seen.");
  const messages = conversation(nex, 1);
  assertAlternates(messages);
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user"],
  );
  assert.match(String(messages[0]?.content), /first question[\s\S]*second question/);
});

test("an interrupted answer and then a failed request: every request alternates user and assistant", async (t) => {
  const lines = Array.from({ length: 400 }, (_, i) => `Line ${i + 1} of a long answer.\n`);
  const nex = await startNexTui([
    openaiText(lines.join(""), { chunkSize: 12, delayMs: 40 }),
    status(400, { body: { error: { message: "stub: this request is refused" } } }),
    openaiText("Third answered."),
  ]);
  t.after(() => nex.close());
  nex.pty.write(`write a lot${keys.enter}`);
  await nex.pty.waitFor("Line 3 of a long answer.");
  nex.pty.write(keys.esc);
  await nex.pty.waitFor("Interrupted");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  nex.pty.write(`second${keys.enter}`);
  await nex.pty.waitFor("Request failed");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  nex.pty.write(`third${keys.enter}`);
  await nex.pty.waitFor("Third answered.");
  const second = conversation(nex, 1);
  assert.deepEqual(
    second.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  assert.match(String(second[1]?.content), /\[interrupted by the user\]$/);
  const third = conversation(nex, 2);
  assertAlternates(third);
  assert.deepEqual(
    third.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  assert.match(String(third[2]?.content), /^second\n\nthird$/);
});

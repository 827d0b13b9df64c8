// An interrupted answer stays in the conversation, marked, so the next request carries the user's
// two prompts with the cut answer between them (never two user messages in a row).
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

interface WireMessage {
  role: string;
  content: unknown;
}

test("an interrupted answer is kept, marked [interrupted by the user], and sent back as the model's turn", async (t) => {
  const lines = Array.from({ length: 400 }, (_, i) => `Line ${i + 1} of a long answer.\n`);
  const nex = await startNexTui([
    openaiText(lines.join(""), { chunkSize: 12, delayMs: 40 }),
    openaiText("Shorter, then."),
  ]);
  t.after(() => nex.close());
  nex.pty.write(`write a lot${keys.enter}`);
  await nex.pty.waitFor("Line 3 of a long answer.");
  nex.pty.write(keys.esc);
  await nex.pty.waitFor("Interrupted");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  nex.pty.write(`shorter please${keys.enter}`);
  await nex.pty.waitFor("Shorter, then.");
  const second = nex.chatRequests()[1];
  assert.ok(second);
  const messages = (second.body as { messages: WireMessage[] }).messages.filter(
    (m) => m.role !== "system",
  );
  assert.deepEqual(
    messages.map((m) => m.role),
    ["user", "assistant", "user"],
  );
  const cut = String(messages[1]?.content);
  assert.match(cut, /^Line 1 of a long answer\.\nLine 2 of a long answer\./);
  assert.match(cut, /\n\n\[interrupted by the user\]$/);
});

// A large paste shows collapsed, in the prompt and in the chat, and is sent whole.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

test("a 240-line paste shows as [pasted 240 lines] and reaches the model whole", async (t) => {
  const nex = await startNexTui([openaiText("Read all of it.")], { cols: 100, rows: 30 });
  t.after(() => nex.close());
  const lines = Array.from({ length: 240 }, (_, i) => `log line ${i + 1}`);
  nex.pty.write("explain this: ");
  nex.pty.write(`\x1b[200~${lines.join("\r")}\x1b[201~`);
  const prompt = await nex.pty.waitFor("[pasted 240 lines]");
  assert.doesNotMatch(prompt, /log line 17/, "the paste is not spread over the prompt");
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("Read all of it.");
  assert.match(nex.pty.history(), /› explain this: \[pasted 240 lines\]/);
  assert.doesNotMatch(nex.pty.history(), /log line 17\b/);
  const body = nex.chatRequests()[0]?.body as { messages: { role: string; content: string }[] };
  const user = body.messages.find((m) => m.role === "user");
  assert.equal(user?.content, `explain this: ${lines.join("\n")}`);
});

import assert from "node:assert/strict";
import { appendFileSync } from "node:fs";
import { test } from "node:test";
import type { Message } from "../../src/protocol/index.ts";
import { createJournal } from "../../src/session/journal.ts";
import { describeFit, loadForResume } from "../../src/session/replay.ts";
import { conversation, tempDir } from "./fixtures.ts";

const session = { workspace: "/w", provider: "openai", model: "m", baseUrl: "http://h/v1" };

function line(seq: number, message: Message): string {
  return `${JSON.stringify({ v: 1, type: "message", ts: "2026-01-01T00:00:00.000Z", seq, tok: seq * 10, message })}\n`;
}

/** A journal of `shared` messages, then two writers' turns interleaved record by record, as two processes wrote them. */
async function interleavedJournal(shared: Message[], a: Message[], b: Message[]): Promise<string> {
  const journal = await createJournal(tempDir(), session, { sync: "never" });
  for (const m of shared) journal.appendMessage(m);
  journal.close();
  let text = "";
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const seq = shared.length + i + 1;
    if (a[i]) text += line(seq, a[i] as Message);
    if (b[i]) text += line(seq, b[i] as Message);
  }
  appendFileSync(journal.path, text);
  return journal.path;
}

function turn(tag: string, n: number): Message[] {
  const out: Message[] = [{ type: "user", text: `${tag} prompt` }];
  for (let i = 0; i < n; i++) {
    const id = `${tag}_call_${i}`;
    out.push({
      type: "assistant",
      text: "",
      toolCalls: [{ id, name: "read_file", argumentsText: "{}" }],
    });
    out.push({
      type: "tool_result",
      toolCallId: id,
      toolName: "read_file",
      content: `${tag} ${i}`,
      isError: false,
    });
  }
  out.push({ type: "assistant", text: `${tag} done`, toolCalls: [] });
  return out;
}

test("interleaved writers are reported as a damaged journal, never as messages that did not fit", async () => {
  const shared = conversation(30, 3);
  const path = await interleavedJournal(shared, turn("A", 4), turn("B", 4));
  const result = await loadForResume(path, { budgetTokens: 1_000_000 });
  const warnings = result.warnings.join("\n");
  assert.match(
    warnings,
    /journal is damaged: 10 message record\(s\) repeat or break the message order \(numbers 31-40\)/,
  );
  assert.match(warnings, /two nex processes/);
  assert.doesNotMatch(warnings, /fit/);
  // The whole shared history is there, followed by one writer's line of messages, whole and in order.
  assert.deepEqual(result.messages, [...shared, ...turn("B", 4)]);
  assert.equal(result.droppedMessages, false);
  assert.doesNotMatch(describeFit(result, { model: "m", window: 1_000_000 }), /kept the last/);
});

test("a journal whose numbers run clean resumes without a warning", async () => {
  const path = await interleavedJournal(conversation(30, 3), turn("A", 4), []);
  const result = await loadForResume(path, { budgetTokens: 1_000_000 });
  assert.deepEqual(result.warnings, []);
  assert.equal(result.messages.length, 40);
});

test("when the mixed records break tool pairs, what is left out is blamed on the damaged journal, not the window", async () => {
  const shared = conversation(30, 3);
  // Writer A got four records in, writer B two: following the numbers back takes B's call, whose
  // result never came, so only what follows the break can be kept.
  const path = await interleavedJournal(shared, turn("A", 1), turn("B", 1).slice(0, 2));
  const result = await loadForResume(path, { budgetTokens: 1_000_000 });
  assert.match(result.warnings.join("\n"), /journal is damaged/);
  assert.doesNotMatch(result.warnings.join("\n"), /fit/);
  assert.ok(result.droppedMessages);
  const line = describeFit(result, { model: "m", window: 1_000_000 });
  assert.match(line, /damaged journal/);
  assert.doesNotMatch(line, /to fit/);
  const note = result.messages[0];
  assert.ok(note?.type === "user" && /journal is damaged/.test(note.text), JSON.stringify(note));
});

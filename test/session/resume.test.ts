import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { test } from "node:test";
import type { Message } from "../../src/protocol/index.ts";
import { contextBudget } from "../../src/session/budget.ts";
import { createJournal, type Journal } from "../../src/session/journal.ts";
import { describeFit, loadForResume, SUMMARY_PREFIX } from "../../src/session/replay.ts";
import { createTokenEstimator } from "../../src/session/tokens.ts";
import { conversation, tempDir } from "./fixtures.ts";

const session = {
  workspace: "/home/u/project",
  provider: "openai-compatible",
  model: "qwen3-coder",
  baseUrl: "http://gpu01:8000/v1",
};

async function journalOf(messages: readonly Message[], each?: (j: Journal, i: number) => void) {
  const journal = await createJournal(tempDir(), session, { sync: "never" });
  messages.forEach((m, i) => {
    journal.appendMessage(m);
    each?.(journal, i);
  });
  journal.close();
  return journal;
}

/** Every tool result answers a call made before it in the list, and every call is answered. */
function assertPairsIntact(messages: readonly Message[]): void {
  const open = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    if (m.type === "assistant") for (const c of m.toolCalls) open.add(c.id);
    if (m.type === "tool_result") {
      assert.ok(open.has(m.toolCallId), `orphan tool result ${m.toolCallId}`);
      answered.add(m.toolCallId);
    }
  }
  for (const id of open) assert.ok(answered.has(id), `call ${id} has no result`);
}

test("resume_truncates_oversized_journal: a 500-message journal resumed into an 8k window keeps a fitting suffix and says so", async () => {
  const all = conversation(500, 3);
  const journal = await journalOf(all);
  const window = 8192;
  const budgetTokens = contextBudget({ window }).promptBudget - 600; // system prompt and tool specs
  const result = await loadForResume(journal.path, { budgetTokens });

  assert.equal(result.totalMessages, 500);
  assert.equal(result.droppedMessages, true);
  assert.equal(result.summarised, false);
  assert.ok(result.keptMessages > 0 && result.keptMessages < 500);
  assert.ok(result.tokensKept <= budgetTokens, `${result.tokensKept} > ${budgetTokens}`);
  assert.equal(createTokenEstimator().estimateMessages(result.messages), result.tokensKept);
  assert.deepEqual(result.messages.slice(-result.keptMessages), all.slice(-result.keptMessages));
  assert.equal(result.messages[0]?.type, "user", "the conversation starts with a user message");
  assert.notEqual(result.messages[1]?.type, "tool_result");
  assertPairsIntact(result.messages);
  assert.ok((result.tokensTotalEstimate ?? 0) > 10 * result.tokensKept);

  const line = describeFit(result, { model: "qwen3-coder", window });
  assert.match(
    line,
    /^Journal had 500 messages \(~\d+k tokens\); kept the last (\d+) \(~\d+(\.\d)?k tokens\) to fit qwen3-coder \(8192\)\.$/,
  );
  assert.equal(line.match(/kept the last (\d+)/)?.[1], String(result.keptMessages));
  assert.deepEqual(result.warnings, []);
});

test("a resumed suffix never starts with an orphan tool result, whatever the budget", async () => {
  const all = conversation(300, 11);
  const journal = await journalOf(all);
  for (let budgetTokens = 150; budgetTokens < 12_000; budgetTokens += 397) {
    const result = await loadForResume(journal.path, { budgetTokens });
    assert.ok(
      result.tokensKept <= budgetTokens,
      `budget ${budgetTokens}: kept ${result.tokensKept}`,
    );
    assertPairsIntact(result.messages);
    const first = result.messages[0];
    assert.ok(first === undefined || first.type === "user", `budget ${budgetTokens}`);
  }
});

test("the fitted line reads exactly as specified", () => {
  const line = describeFit(
    {
      totalMessages: 311,
      tokensTotalEstimate: 250_123,
      keptMessages: 47,
      tokensKept: 28_300,
      droppedMessages: true,
      summarised: false,
    },
    { model: "qwen3-coder", window: 32768 },
  );
  assert.equal(
    line,
    "Journal had 311 messages (~250k tokens); kept the last 47 (~28k tokens) to fit qwen3-coder (32768).",
  );
});

test("a journal that fits is resumed whole", async () => {
  const all = conversation(40, 5);
  const journal = await journalOf(all);
  const result = await loadForResume(journal.path, { budgetTokens: 200_000 });
  assert.deepEqual(result.messages, all);
  assert.equal(result.keptMessages, 40);
  assert.equal(result.droppedMessages, false);
  assert.match(
    describeFit(result, { model: "qwen3-coder", window: 262144 }),
    /^Journal has 40 messages \(~[\d.]+k tokens\); all fit qwen3-coder \(262144\)\.$/,
  );
});

test("the read ledger survives resume, newest record per path, even when written long before the kept messages", async () => {
  const all = conversation(2000, 9);
  const ledger = (path: string, hash: string) => ({
    path,
    hash,
    mtimeMs: 1,
    size: 10,
    complete: true,
  });
  const journal = await journalOf(all, (j, i) => {
    if (i === 3) j.appendLedger(ledger("/p/early.ts", "v1"));
    if (i === 5) j.appendLedger(ledger("/p/changed.ts", "old"));
    if (i === 1500) j.appendLedger(ledger("/p/changed.ts", "new"));
    if (i === 1990) j.appendLedger(ledger("/p/late.ts", "v1"));
    if (all[i]?.type === "user") j.syncTurn();
  });
  const result = await loadForResume(journal.path, { budgetTokens: 3000 });
  const byPath = Object.fromEntries(result.ledger.map((r) => [r.path, r.hash]));
  assert.deepEqual(byPath, { "/p/early.ts": "v1", "/p/changed.ts": "new", "/p/late.ts": "v1" });
  const size = statSync(journal.path).size;
  assert.ok(result.bytesRead < size / 4, `read ${result.bytesRead} of ${size}`);
});

test("without any ledger snapshot, resume still finds every ledger record", async () => {
  const all = conversation(60, 13);
  const journal = await journalOf(all, (j, i) => {
    if (i === 2)
      j.appendLedger({ path: "/p/a.ts", hash: "h", mtimeMs: 1, size: 1, complete: true });
  });
  const { readFileSync } = await import("node:fs");
  assert.ok(!readFileSync(journal.path, "utf8").includes("ledger_snapshot"));
  const result = await loadForResume(journal.path, { budgetTokens: 300 });
  assert.ok(result.keptMessages < 50, "the ledger record lies beyond the budget");
  assert.deepEqual(
    result.ledger.map((r) => r.path),
    ["/p/a.ts"],
  );
});

test("resuming after a compaction leads with its summary and reads nothing before the kept messages", async () => {
  const all = conversation(120, 17);
  const journal = await createJournal(tempDir(), session, { sync: "never" });
  for (const m of all.slice(0, 100)) journal.appendMessage(m);
  let firstKeptSeq = 90;
  while (all[firstKeptSeq - 1]?.type === "tool_result") firstKeptSeq++;
  journal.appendCompaction({
    summary: "The user is adding tests to the parser.",
    replacedMessages: firstKeptSeq - 1,
    firstKeptSeq,
    tokensBefore: 50_000,
    tokensAfter: 4_000,
  });
  for (const m of all.slice(100)) journal.appendMessage(m);
  journal.close();

  const result = await loadForResume(journal.path, { budgetTokens: 1_000_000 });
  assert.equal(result.summarised, true);
  assert.equal(result.droppedMessages, false);
  assert.deepEqual(result.messages[0], {
    type: "user",
    text: `${SUMMARY_PREFIX}The user is adding tests to the parser.`,
  });
  assert.deepEqual(result.messages.slice(1), all.slice(firstKeptSeq - 1));
  assert.equal(result.keptMessages, 121 - firstKeptSeq);
  assert.match(
    describeFit(result, { model: "qwen3-coder", window: 32768 }),
    new RegExp(
      `^Journal had 120 messages \\(~[\\d.]+k tokens\\); kept a summary and the last ${121 - firstKeptSeq} `,
    ),
  );
});

test("calls left without a result by a crash are answered as unknown, for the runtime to journal", async () => {
  const all: Message[] = [
    { type: "user", text: "write two files" },
    {
      type: "assistant",
      text: "",
      toolCalls: [
        { id: "a", name: "write_file", argumentsText: '{"path":"a.ts","content":"1"}' },
        { id: "b", name: "write_file", argumentsText: '{"path":"b.ts","content":"2"}' },
      ],
    },
    {
      type: "tool_result",
      toolCallId: "a",
      toolName: "write_file",
      content: "wrote a.ts",
      isError: false,
    },
  ];
  const journal = await journalOf(all);
  const result = await loadForResume(journal.path, { budgetTokens: 10_000 });
  assert.equal(result.repairs.length, 1);
  assert.equal(result.repairs[0]?.toolCallId, "b");
  assert.equal(result.repairs[0]?.isError, true);
  assert.match(result.repairs[0]?.content ?? "", /unknown/);
  assert.deepEqual(result.messages, [...all, ...result.repairs]);
  assertPairsIntact(result.messages);
  assert.equal(result.warnings.length, 1);
});

test("a torn last line does not stop a resume", async () => {
  const all = conversation(30, 2);
  const journal = await journalOf(all);
  const { appendFileSync } = await import("node:fs");
  appendFileSync(journal.path, '{"v":1,"type":"message","seq":31,"tok":1,"message":{"type":"us');
  const result = await loadForResume(journal.path, { budgetTokens: 100_000 });
  assert.deepEqual(result.messages, all);
  assert.equal(result.warnings.length, 1);
  assert.match(result.warnings[0] as string, /last line is incomplete/);
});

test("usage the endpoint reported corrects the estimate: a model that counts twice the tokens keeps fewer messages", async () => {
  const all = conversation(400, 21);
  const plain = await journalOf(all);
  const reported = await journalOf(all, (j, i) => {
    if (i === 390)
      j.appendUsage({ inputTokens: 20_000, outputTokens: 100, estimatedTokens: 10_000 });
  });
  const a = await loadForResume(plain.path, { budgetTokens: 6000 });
  const estimator = createTokenEstimator();
  const b = await loadForResume(reported.path, { budgetTokens: 6000, estimator });
  assert.equal(estimator.ratio, 2);
  assert.ok(b.keptMessages < a.keptMessages, `${b.keptMessages} !< ${a.keptMessages}`);
  assert.ok(b.tokensKept <= 6000);
  assert.ok((b.tokensTotalEstimate ?? 0) > (a.tokensTotalEstimate ?? 0) * 1.5);
});

test("the reverse reader's work follows what is kept, not the journal's length", async () => {
  const short = (i: number): Message =>
    i % 3 === 0
      ? { type: "user", text: `step ${i}: run the tests again and report` }
      : { type: "assistant", text: `step ${i} done, all tests pass`, toolCalls: [] };
  const sizes = [10_000, 100_000];
  const read: number[] = [];
  for (const n of sizes) {
    const journal = await createJournal(tempDir(), session, { sync: "never" });
    for (let i = 0; i < n; i++) journal.appendMessage(short(i));
    journal.close();
    const result = await loadForResume(journal.path, {
      budgetTokens: contextBudget({ window: 32768 }).promptBudget,
    });
    assert.equal(result.totalMessages, n);
    const size = statSync(journal.path).size;
    if (n === 100_000)
      assert.ok(result.bytesRead < size / 20, `read ${result.bytesRead} of ${size}`);
    read.push(result.bytesRead);
  }
  assert.ok(
    (read[1] as number) <= (read[0] as number) * 1.5,
    `10x the journal read ${read[1]} bytes against ${read[0]}`,
  );
});

test("rewinds, one after another and around a compaction, resume as the conversation the user was left with", async () => {
  const all = conversation(60, 23);
  const starts = all.flatMap((m, i) => (m.type === "user" ? [i] : []));
  const [, second = 0, third = 0, fourth = 0] = starts;
  const journal = await createJournal(tempDir(), session, { sync: "never" });
  for (const m of all.slice(0, fourth)) journal.appendMessage(m);
  // Back to before the third prompt; then the fourth prompt's turn again, then back to before it.
  journal.appendRewind(fourth - third);
  for (const m of all.slice(fourth, starts[4])) journal.appendMessage(m);
  journal.appendRewind((starts[4] ?? 0) - fourth);
  const extra: Message[] = [{ type: "user", text: "another way, then" }];
  for (const m of extra) journal.appendMessage(m);
  journal.close();
  const result = await loadForResume(journal.path, { budgetTokens: 1_000_000 });
  assert.deepEqual(result.messages, [...all.slice(0, third), ...extra]);
  assert.deepEqual(result.warnings, []);

  // A compaction after the rewind keeps its summary and the messages from its first kept one.
  const compacted = await createJournal(tempDir(), session, { sync: "never" });
  for (const m of all.slice(0, fourth)) compacted.appendMessage(m);
  compacted.appendRewind(fourth - third);
  compacted.appendCompaction({
    summary: "Parser tests.",
    replacedMessages: second,
    firstKeptSeq: second + 1,
    tokensBefore: 9_000,
    tokensAfter: 1_000,
  });
  compacted.close();
  const resumed = await loadForResume(compacted.path, { budgetTokens: 1_000_000 });
  assert.equal(resumed.summarised, true);
  assert.deepEqual(resumed.messages.slice(1), all.slice(second, third));
});

test("a rewind cut off while being written leaves the conversation as it was before it", async () => {
  const all = conversation(30, 5);
  const journal = await journalOf(all);
  const { appendFileSync } = await import("node:fs");
  appendFileSync(journal.path, '{"v":1,"type":"rewind","dr');
  const result = await loadForResume(journal.path, { budgetTokens: 100_000 });
  assert.deepEqual(result.messages, all);
  assert.match(result.warnings[0] as string, /last line is incomplete/);
});

test("the resume line counts the conversation's messages: not those a rewind took out or a /clear left behind", async () => {
  const all = conversation(30, 5);
  const starts = all.flatMap((m, i) => (m.type === "user" ? [i] : []));
  const third = starts[2] ?? 0;
  const journal = await createJournal(tempDir(), session, { sync: "never" });
  for (const m of all) journal.appendMessage(m);
  journal.appendRewind(all.length - third);
  journal.close();
  const result = await loadForResume(journal.path, { budgetTokens: 1_000_000 });
  assert.equal(result.messages.length, third);
  assert.equal(result.totalMessages, third);
  assert.match(
    describeFit(result, { model: "m", window: 1_000_000 }),
    new RegExp(`^Journal has ${third} messages`),
  );

  const cleared = await createJournal(tempDir(), session, { sync: "never" });
  for (const m of all) cleared.appendMessage(m);
  cleared.appendClear();
  cleared.appendMessage({ type: "user", text: "fresh start" });
  cleared.close();
  const fresh = await loadForResume(cleared.path, { budgetTokens: 1_000_000 });
  assert.equal(fresh.totalMessages, 1);
  assert.match(describeFit(fresh, { model: "m", window: 1_000_000 }), /^Journal has 1 message /);
});

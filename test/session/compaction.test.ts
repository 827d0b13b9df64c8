import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { Message, ToolCall } from "../../src/protocol/index.ts";
import {
  applyCompaction,
  buildCompactionRequests,
  buildMergeRequests,
  planCompaction,
  runCompaction,
  type SummaryRequest,
} from "../../src/session/compaction.ts";
import { createJournal } from "../../src/session/journal.ts";
import { describeToolCall } from "../../src/session/message-text.ts";
import { loadForResume, SUMMARY_PREFIX } from "../../src/session/replay.ts";
import { createTokenEstimator } from "../../src/session/tokens.ts";
import { conversation, prose, rng, tempDir } from "./fixtures.ts";

const estimator = createTokenEstimator();

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

function assertFits(request: SummaryRequest, window: number): void {
  const prompt = estimator.estimateRequest({ system: request.system, messages: request.messages });
  assert.ok(prompt + request.maxTokens <= window, `${prompt} + ${request.maxTokens} > ${window}`);
}

const requestText = (requests: readonly SummaryRequest[]): string =>
  requests
    .map((r) => [r.system, ...r.messages.map((m) => (m.type === "user" ? m.text : ""))].join("\n"))
    .join("\n");

/** Random valid conversations: exchanges of a user prompt, tool turns with results, sizes up to ~40 KB. */
const conversations = fc
  .array(
    fc.record({
      words: fc.nat({ max: 400 }),
      turns: fc.array(
        fc.record({
          words: fc.nat({ max: 60 }),
          calls: fc.array(
            fc.record({ argWords: fc.nat({ max: 2500 }), resultWords: fc.nat({ max: 3000 }) }),
            {
              maxLength: 3,
            },
          ),
        }),
        { maxLength: 4 },
      ),
    }),
    { minLength: 1, maxLength: 25 },
  )
  .chain((exchanges) =>
    fc.nat().map((seed) => {
      const random = rng(seed);
      const out: Message[] = [];
      let id = 0;
      for (const ex of exchanges) {
        out.push({ type: "user", text: prose(random, ex.words + 1) });
        for (const turn of ex.turns) {
          const calls: ToolCall[] = turn.calls.map((c) => ({
            id: `call_${++id}`,
            name: "write_file",
            argumentsText: JSON.stringify({
              path: `src/f${id}.ts`,
              content: prose(random, c.argWords),
            }),
          }));
          out.push({ type: "assistant", text: prose(random, turn.words), toolCalls: calls });
          turn.calls.forEach((c, i) => {
            out.push({
              type: "tool_result",
              toolCallId: calls[i]?.id ?? "",
              toolName: "write_file",
              content: prose(random, c.resultWords),
              isError: false,
            });
          });
        }
      }
      return out;
    }),
  );

test("compaction planning never separates a tool call from its result", () => {
  fc.assert(
    fc.property(
      conversations,
      fc.integer({ min: 4096, max: 131072 }),
      fc.integer({ min: 0, max: 20000 }),
      (messages, window, keepRecentTokens) => {
        const plan = planCompaction(messages, { window, estimator, keepRecentTokens });
        if (!plan) return;
        assert.deepEqual([...plan.prefix, ...plan.suffix], messages);
        assert.ok(plan.prefix.length > 0);
        assert.notEqual(plan.suffix[0]?.type, "tool_result");
        assertPairsIntact(plan.suffix);
        assertPairsIntact(plan.prefix);
        assert.equal(plan.prefixTokens + plan.suffixTokens, estimator.estimateMessages(messages));
      },
    ),
    { numRuns: 25 },
  );
});

test("every compaction request fits the window, however large the prefix", () => {
  fc.assert(
    fc.property(conversations, fc.constantFrom(2048, 4096, 8192, 32768), (messages, window) => {
      const requests = buildCompactionRequests(messages, { window, estimator });
      assert.ok(requests.length >= 1);
      for (const r of requests) {
        assert.equal(r.kind, "chunk");
        assert.ok(r.maxTokens >= 128);
        assertFits(r, window);
      }
      // every user prompt reaches some request
      const text = requestText(requests);
      for (const m of messages) {
        if (m.type === "user" && m.text.length < 200) assert.ok(text.includes(m.text));
      }
    }),
    { numRuns: 40 },
  );
});

test("historical tool arguments are omitted whole: not even a prefix of the content reaches the summariser", () => {
  const content = `ZQXJ-UNIQUE-START ${prose(rng(4), 3000)} ZQXJ-UNIQUE-END`;
  const call: ToolCall = {
    id: "c1",
    name: "write_file",
    argumentsText: JSON.stringify({ path: "src/a.ts", content }),
  };
  const messages: Message[] = [
    { type: "user", text: "write a.ts" },
    { type: "assistant", text: "", toolCalls: [call] },
    {
      type: "tool_result",
      toolCallId: "c1",
      toolName: "write_file",
      content: "wrote a.ts",
      isError: false,
    },
    { type: "user", text: "thanks" },
  ];
  const text = requestText(buildCompactionRequests(messages, { window: 8192, estimator }));
  assert.ok(!text.includes("ZQXJ"), "no prefix or suffix of the content");
  assert.ok(!text.includes(content.slice(19, 60)));
  const bytes = Buffer.byteLength(JSON.stringify(content)) - 2;
  assert.ok(
    text.includes(
      `[write_file path=src/a.ts, ${bytes.toLocaleString("en-US")} bytes of content omitted]`,
    ),
  );
  assert.equal(
    describeToolCall({
      id: "x",
      name: "write_file",
      argumentsText: '{"path":"a.ts","content":"abc',
    }),
    "[write_file: 29 bytes of arguments omitted (not valid JSON)]",
  );
});

test("a long tool result reaches the summariser as whole first lines and a plain note", () => {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i} of the test output`);
  const messages: Message[] = [
    { type: "user", text: "run the tests" },
    {
      type: "assistant",
      text: "",
      toolCalls: [{ id: "b", name: "bash", argumentsText: '{"command":"npm test"}' }],
    },
    {
      type: "tool_result",
      toolCallId: "b",
      toolName: "bash",
      content: lines.join("\n"),
      isError: true,
    },
  ];
  const text = requestText(buildCompactionRequests(messages, { window: 8192, estimator }));
  assert.ok(text.includes('[bash command="npm test"]'));
  assert.ok(text.includes("line 0 of the test output\n"));
  assert.ok(!text.includes("line 199"));
  assert.match(
    text,
    /\[tool_result: [\d,]+ bytes in total; only the first lines are shown above, the rest is omitted\]/,
  );
});

test("merge requests fit the window and a compaction converges to one summary", async () => {
  const window = 4096;
  const messages = conversation(400, 8);
  const plan = planCompaction(messages, { window, estimator });
  assert.ok(plan);
  const seen: SummaryRequest[] = [];
  const result = await runCompaction(plan, {
    window,
    estimator,
    journalSeq: 400,
    // The worst case: every summary as long as it may be.
    summarise: async (request) => {
      seen.push(request);
      return prose(rng(seen.length), Math.floor(request.maxTokens * 0.7));
    },
  });
  assert.ok(seen.filter((r) => r.kind === "chunk").length > 3, "the prefix needed several chunks");
  assert.ok(seen.some((r) => r.kind === "merge"));
  for (const r of seen) assertFits(r, window);
  assert.ok(
    result.messages[0]?.type === "user" && result.messages[0].text.startsWith(SUMMARY_PREFIX),
  );
  assert.deepEqual(result.messages.slice(1), plan.suffix);
  assert.equal(result.record.firstKeptSeq, 400 - plan.suffix.length + 1);
  assert.equal(result.record.replacedMessages, plan.prefix.length);
  assert.ok(result.record.tokensAfter < result.record.tokensBefore);
  assert.match(result.line, /^Compacted \d+ earlier messages \(~[\d.]+k tokens\) into a summary/);
  assert.deepEqual(buildMergeRequests(["only one"], { window, estimator }), []);
});

test("a compaction journaled mid-session is what the next resume starts from", async () => {
  const messages = conversation(200, 12);
  const journal = await createJournal(
    tempDir(),
    { workspace: "/w", provider: "p", model: "m", baseUrl: "http://h" },
    { sync: "never" },
  );
  for (const m of messages.slice(0, 150)) journal.appendMessage(m);
  const plan = planCompaction(messages.slice(0, 150), { window: 16384, estimator });
  assert.ok(plan);
  const done = applyCompaction("The user is refactoring the file module.", plan, {
    journalSeq: journal.seq,
    estimator,
  });
  journal.appendCompaction(done.record);
  for (const m of messages.slice(150)) journal.appendMessage(m);
  journal.close();

  const resumed = await loadForResume(journal.path, { budgetTokens: 1_000_000 });
  assert.equal(resumed.summarised, true);
  assert.deepEqual(resumed.messages, [...done.messages, ...messages.slice(150)]);
});

test("an empty summary is refused rather than replacing the conversation", () => {
  const messages = conversation(50, 1);
  const plan = planCompaction(messages, { window: 4096, estimator });
  assert.ok(plan);
  assert.throws(() => applyCompaction("  ", plan, { journalSeq: 50 }), /empty summary/);
});

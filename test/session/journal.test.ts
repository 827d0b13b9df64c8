import assert from "node:assert/strict";
import { appendFileSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import type { AgentEvent, Message, ReadRecord } from "../../src/protocol/index.ts";
import {
  createJournal,
  type Journal,
  openJournal,
  readJournal,
} from "../../src/session/journal.ts";
import { createSecretScrubber } from "../../src/session/secret-scrubber.ts";
import { isSessionId } from "../../src/session/session-id.ts";
import { tempDir } from "./fixtures.ts";

const session = {
  workspace: "/home/u/project",
  provider: "openai-compatible",
  model: "qwen3-coder",
  baseUrl: "https://gpu01.example.net:8443/v1",
};

const ledgerRecord = (path: string, hash = "h1"): ReadRecord => ({
  path,
  hash,
  mtimeMs: 1_700_000_000_000,
  size: 120,
  complete: true,
});

async function newJournal(): Promise<Journal> {
  return createJournal(tempDir(), session, { sync: "never" });
}

test("every record type written to a journal reads back as written", async () => {
  const journal = await newJournal();
  const messages: Message[] = [
    { type: "user", text: "add a test" },
    {
      type: "assistant",
      text: "writing it",
      toolCalls: [{ id: "c1", name: "write_file", argumentsText: '{"path":"a.ts","content":"x"}' }],
    },
    {
      type: "tool_result",
      toolCallId: "c1",
      toolName: "write_file",
      content: "wrote 1 byte",
      isError: false,
    },
  ];
  for (const m of messages) journal.appendMessage(m);
  journal.appendLedger(ledgerRecord("/home/u/project/a.ts"));
  journal.appendLedgerSnapshot();
  const event: AgentEvent = { type: "notice", message: "raised the output limit to 8192" };
  journal.appendEvent(event);
  journal.appendCheckpoint(3, "before write_file a.ts");
  journal.appendCompaction({
    summary: "The user wants tests.",
    replacedMessages: 2,
    firstKeptSeq: 3,
    tokensBefore: 900,
    tokensAfter: 300,
  });
  journal.appendUsage({ inputTokens: 1234, outputTokens: 56, estimatedTokens: 1200 });
  journal.syncTurn();
  journal.close();

  const loaded = await readJournal(journal.path);
  assert.deepEqual(loaded.warnings, []);
  assert.equal(loaded.meta.model, "qwen3-coder");
  assert.equal(loaded.meta.host, "gpu01.example.net:8443");
  assert.ok(isSessionId(loaded.meta.id), loaded.meta.id);
  const types = loaded.records.map((r) => r.type);
  assert.deepEqual(types, [
    "session",
    "message",
    "message",
    "message",
    "ledger",
    "ledger_snapshot",
    "event",
    "checkpoint",
    "compaction",
    "ledger_snapshot",
    "usage",
  ]);
  const byType = <T extends string>(t: T) => loaded.records.filter((r) => r.type === t);
  assert.deepEqual(
    byType("message").map((r) => (r.type === "message" ? r.message : null)),
    messages,
  );
  assert.deepEqual(
    byType("message").map((r) => (r.type === "message" ? r.seq : null)),
    [1, 2, 3],
  );
  const toks = byType("message").map((r) => (r.type === "message" ? r.tok : 0));
  assert.ok(
    (toks[0] as number) > 0 &&
      (toks[1] as number) > (toks[0] as number) &&
      (toks[2] as number) > (toks[1] as number),
  );
  const [ledger] = byType("ledger");
  assert.deepEqual(
    ledger?.type === "ledger" ? ledger.record : null,
    ledgerRecord("/home/u/project/a.ts"),
  );
  const [snapshot] = byType("ledger_snapshot");
  assert.deepEqual(snapshot?.type === "ledger_snapshot" ? snapshot.records : null, [
    ledgerRecord("/home/u/project/a.ts"),
  ]);
  const [ev] = byType("event");
  assert.deepEqual(ev?.type === "event" ? ev.event : null, event);
  const [cp] = byType("checkpoint");
  assert.deepEqual(cp?.type === "checkpoint" ? [cp.turn, cp.description] : null, [
    3,
    "before write_file a.ts",
  ]);
  const [comp] = byType("compaction");
  assert.equal(comp?.type === "compaction" ? comp.firstKeptSeq : null, 3);
  const [usage] = byType("usage");
  assert.deepEqual(
    usage?.type === "usage"
      ? [usage.inputTokens, usage.outputTokens, usage.messages, usage.estimatedTokens]
      : null,
    [1234, 56, 3, 1200],
  );
  for (const line of readFileSync(journal.path, "utf8").trimEnd().split("\n")) {
    const r = JSON.parse(line) as { v: number; ts: string };
    assert.equal(r.v, 1);
    assert.ok(!Number.isNaN(Date.parse(r.ts)));
  }
});

test("the journal directory and file are private to the user", async () => {
  const dir = tempDir();
  const journal = await createJournal(dir, session, { sync: "never" });
  journal.close();
  assert.equal(statSync(journal.path).mode & 0o777, 0o600);
  assert.equal(statSync(`${dir}/sessions`).mode & 0o777, 0o700);
});

test("a torn last line is skipped with a warning and everything before it loads", async () => {
  const journal = await newJournal();
  journal.appendMessage({ type: "user", text: "one" });
  journal.appendMessage({ type: "user", text: "two" });
  journal.close();
  appendFileSync(
    journal.path,
    '{"v":1,"type":"message","ts":"2026-01-01T00:00:00.000Z","seq":3,"tok":9,"mess',
  );

  const loaded = await readJournal(journal.path);
  assert.equal(loaded.records.filter((r) => r.type === "message").length, 2);
  assert.equal(loaded.warnings.length, 1);
  assert.match(loaded.warnings[0] as string, /line 4, the last, is incomplete/);
});

test("a corrupt line in the middle is skipped with a warning naming its line number", async () => {
  const journal = await newJournal();
  journal.appendMessage({ type: "user", text: "one" });
  journal.close();
  appendFileSync(journal.path, "{garbage\n");
  const reopened = await openJournal(journal.path, { sync: "never" });
  reopened.appendMessage({ type: "user", text: "two" });
  reopened.close();

  const loaded = await readJournal(journal.path);
  assert.deepEqual(
    loaded.records.flatMap((r) =>
      r.type === "message" && r.message.type === "user" ? [r.message.text] : [],
    ),
    ["one", "two"],
  );
  assert.equal(loaded.warnings.length, 1);
  assert.match(loaded.warnings[0] as string, /^Journal line 3 is corrupt/);
});

test("reopening a journal continues its running totals and closes a torn line first", async () => {
  const journal = await newJournal();
  journal.appendMessage({ type: "user", text: "one" });
  journal.appendMessage({ type: "assistant", text: "two", toolCalls: [] });
  const tokBefore = journal.tokens;
  journal.close();
  appendFileSync(journal.path, '{"v":1,"type":"message","seq":3,"to');

  const reopened = await openJournal(journal.path, { sync: "never" });
  assert.equal(reopened.seq, 2);
  assert.equal(reopened.tokens, tokBefore);
  assert.match(reopened.warnings.join("\n"), /last line is incomplete/);
  reopened.appendMessage({ type: "user", text: "three" });
  reopened.close();

  const loaded = await readJournal(journal.path);
  const seqs = loaded.records.flatMap((r) => (r.type === "message" ? [r.seq] : []));
  assert.deepEqual(seqs, [1, 2, 3]);
  assert.equal(
    loaded.warnings.length,
    1,
    "only the torn fragment is lost; the new record is intact",
  );
});

test("reopening a journal recovers its read ledger from the tail", async () => {
  const journal = await newJournal();
  journal.appendLedger(ledgerRecord("/p/a.ts", "old"));
  journal.appendLedger(ledgerRecord("/p/b.ts"));
  journal.appendLedger(ledgerRecord("/p/a.ts", "new"));
  journal.close();
  const reopened = await openJournal(journal.path, { sync: "never" });
  assert.deepEqual(
    reopened.ledger().sort((a, b) => a.path.localeCompare(b.path)),
    [ledgerRecord("/p/a.ts", "new"), ledgerRecord("/p/b.ts")],
  );
  reopened.close();
});

test("no secret reaches the journal: keys, bearer tokens and api-key values are redacted", async () => {
  const dir = tempDir();
  const key = "sk-proj-4f9aB3kL0pQ7rS2tU8vW1xY6zA5bC0dE";
  const journal = await createJournal(
    dir,
    { ...session, baseUrl: `https://user:${key}@api.example.com/v1?api_key=${key}` },
    { sync: "never" },
  );
  journal.appendMessage({ type: "user", text: `my key is ${key}, use it` });
  journal.appendMessage({
    type: "tool_result",
    toolCallId: "c1",
    toolName: "bash",
    isError: false,
    content:
      "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc123def456' -H 'x-api-key: 9f8e7d6c5b4a39281706abcd'",
  });
  journal.appendEvent({
    type: "error",
    code: "auth",
    message: 'request failed: {"headers":{"x-api-key":"ant-9f8e7d6c5b4a39281706abcd"}}',
  });
  journal.appendMessage({
    type: "user",
    text: "push with ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 and Authorization: Basic dXNlcjpwYXNzd29yZDEyMzQ1",
  });
  journal.appendMessage({
    type: "user",
    text: "const apiKey = process.env.KEY; // the task-force-alpha-bravo-charlie",
  });
  journal.close();

  const text = readFileSync(journal.path, "utf8");
  for (const secret of [
    key,
    "eyJhbGciOiJIUzI1NiJ9",
    "9f8e7d6c5b4a39281706abcd",
    "user:",
    "A1b2C3d4E5f6",
    "dXNlcjpwYXNz",
  ]) {
    assert.ok(!text.includes(secret), `journal contains ${secret}`);
  }
  assert.ok(text.includes("Bearer [redacted]"));
  assert.ok(text.includes("api.example.com"));
  assert.ok(
    text.includes("const apiKey = process.env.KEY; // the task-force-alpha-bravo-charlie"),
    "ordinary code is left alone",
  );
  assert.equal(journal.redactions, 6);
  const loaded = await readJournal(journal.path);
  assert.deepEqual(loaded.warnings, [], "redaction keeps every line valid JSON");
});

test("a string that comes again is redacted again, by the session's redaction and the journal's own scrub, and counted each time", async () => {
  const dir = tempDir();
  const key = "nexheld-0123456789abcdef";
  const journal = await createJournal(dir, session, {
    sync: "never",
    secrets: createSecretScrubber([{ name: "OPENAI_API_KEY", value: key }]),
    // The session's redaction: here, only URLs' passwords.
    redact: (text) => text.replaceAll("hunter2-Secret9", "[url password]"),
  });
  const carrier = `key ${key}, https://bob:hunter2-Secret9@example.org and Bearer abcdefghijklmnop0123`;
  for (let i = 0; i < 5; i++) {
    journal.appendMessage({ type: "user", text: carrier });
    journal.appendEvent({ type: "error", code: "auth", message: carrier });
  }
  journal.close();
  const text = readFileSync(journal.path, "utf8");
  for (const secret of [key, "hunter2-Secret9", "abcdefghijklmnop0123"])
    assert.ok(!text.includes(secret), `journal contains ${secret}`);
  assert.equal(text.split("[redacted: OPENAI_API_KEY]").length - 1, 10);
  assert.equal(text.split("[url password]").length - 1, 10);
  // The key and the bearer token, in each of the ten records.
  assert.equal(journal.redactions, 20);
});

test("appending 200 messages writes one line each and never rewrites the file", async () => {
  const journal = await newJournal();
  const sizes: number[] = [];
  for (let i = 0; i < 200; i++) {
    journal.appendMessage({ type: "user", text: `message ${i}` });
    sizes.push(statSync(journal.path).size);
  }
  journal.close();
  for (let i = 1; i < sizes.length; i++) assert.ok((sizes[i] as number) > (sizes[i - 1] as number));
  const lines = readFileSync(journal.path, "utf8").trimEnd().split("\n");
  assert.equal(lines.length, 201);
});

test("a file that is not a journal is refused with a message saying what to do", async () => {
  const path = `${tempDir()}/notes.jsonl`;
  writeFileSync(path, '{"hello":"world"}\n');
  await assert.rejects(readJournal(path), /is not a nex session journal.*nex sessions/);
  await assert.rejects(openJournal(path), /is not a nex session journal/);
});

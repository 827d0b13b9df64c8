import assert from "node:assert/strict";
import { utimesSync } from "node:fs";
import { test } from "node:test";
import { findSession, listSessions } from "../../src/session/catalog.ts";
import { createJournal } from "../../src/session/journal.ts";
import { tempDir } from "./fixtures.ts";

async function seed() {
  const dataDir = tempDir();
  const make = async (id: string, workspace: string, texts: string[], mtime: number) => {
    const j = await createJournal(
      dataDir,
      {
        id,
        workspace,
        provider: "openai-compatible",
        model: "qwen3-coder",
        baseUrl: "http://h:1/v1",
      },
      { sync: "never" },
    );
    texts.forEach((text, i) => {
      j.appendMessage(
        i % 2 === 0 ? { type: "user", text } : { type: "assistant", text, toolCalls: [] },
      );
    });
    j.appendMessage({
      type: "tool_result",
      toolCallId: "x",
      toolName: "bash",
      content: "ok",
      isError: false,
    });
    j.appendEvent({ type: "notice", message: "done" });
    j.close();
    utimesSync(j.path, mtime, mtime);
    return j.path;
  };
  await make(
    "20261101-100000-aaaa",
    "/work/a",
    ["fix the parser", "Fixed the   parser\nand added tests."],
    1000,
  );
  await make("20261102-100000-bbbb", "/work/b", ["x".repeat(200)], 3000);
  await make("20261103-100000-abcd", "/work/a", ["hello", "hi"], 2000);
  return dataDir;
}

test("sessions are listed most recently used first, with their size and newest text", async () => {
  const dataDir = await seed();
  const rows = await listSessions(dataDir);
  assert.deepEqual(
    rows.map((r) => r.sessionId),
    ["20261102-100000-bbbb", "20261103-100000-abcd", "20261101-100000-aaaa"],
  );
  const a = rows[2];
  assert.equal(a?.workspace, "/work/a");
  assert.equal(a?.messages, 3);
  assert.equal(a?.lastMessage, "Fixed the parser and added tests.");
  assert.ok((a?.bytes ?? 0) > 100);
  assert.equal(rows[0]?.lastMessage.length, 80);
  assert.ok(rows[0]?.lastMessage.endsWith("…"));
});

test("listing skips files that are not journals and a missing directory", async () => {
  const dataDir = await seed();
  const { writeFileSync } = await import("node:fs");
  writeFileSync(`${dataDir}/sessions/junk.jsonl`, "not json\n");
  assert.equal((await listSessions(dataDir)).length, 3);
  assert.deepEqual(await listSessions(tempDir()), []);
});

test("a session is found by id, unique prefix or `last`, optionally within a workspace", async () => {
  const dataDir = await seed();
  const last = await findSession(dataDir, "last");
  assert.equal(last.type === "found" ? last.session.sessionId : null, "20261102-100000-bbbb");
  const lastHere = await findSession(dataDir, "last", { workspace: "/work/a" });
  assert.equal(
    lastHere.type === "found" ? lastHere.session.sessionId : null,
    "20261103-100000-abcd",
  );
  const byPrefix = await findSession(dataDir, "20261101");
  assert.equal(
    byPrefix.type === "found" ? byPrefix.session.sessionId : null,
    "20261101-100000-aaaa",
  );
  const ambiguous = await findSession(dataDir, "202611");
  assert.equal(ambiguous.type, "ambiguous");
  assert.match(
    ambiguous.type === "ambiguous" ? ambiguous.message : "",
    /3 sessions match "202611"; give more of the id/,
  );
  const none = await findSession(dataDir, "1999");
  assert.equal(none.type, "not_found");
  assert.match(none.type === "not_found" ? none.message : "", /nex sessions/);
  const empty = await findSession(tempDir(), "last");
  assert.equal(empty.type, "not_found");
});

test("each session is listed with its first prompt: what it is about", async () => {
  const dataDir = await seed();
  const rows = await listSessions(dataDir);
  const a = rows.find((r) => r.sessionId === "20261101-100000-aaaa");
  assert.equal(a?.firstPrompt, "fix the parser");
  const b = rows.find((r) => r.sessionId === "20261103-100000-abcd");
  assert.equal(b?.firstPrompt, "hello");
});

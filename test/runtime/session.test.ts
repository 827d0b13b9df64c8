import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openSession } from "../../src/runtime/assembly/open-session.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, openaiToolCalls, status } from "../support/stub-scripts.ts";

function dirs() {
  const base = scratchDir("nex-runtime-");
  return { base, workspace: mkdtempSync(join(base, "ws-")), dataDir: join(base, "data") };
}

test("after three failed runs in a row the session sends no more requests and says why", async () => {
  const stub = await startStubEndpoint({
    handler: () => status(400, { body: { error: { message: "broken" } } }),
  });
  const { base, workspace, dataDir } = dirs();
  const { session } = await openSession(
    { model: "m", baseUrl: `${stub.url}/v1`, dataDir },
    { HOME: base },
    workspace,
    { resume: null, approvals: "refuse" },
  );
  const ends = [];
  for (let i = 0; i < 5; i++) ends.push(await session.submit(`try ${i}`));
  await session.close();
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 3);
  const last = ends.at(-1);
  assert.equal(last?.type, "error");
  assert.match(last?.type === "error" ? last.message : "", /3 tasks in a row failed/);
});

test("the journal records each change as a checkpoint, messages and events, and never the key", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "hello\n" } }),
      openaiText("done"),
    ],
  });
  const { base, workspace, dataDir } = dirs();
  const { session } = await openSession(
    { model: "m", baseUrl: `${stub.url}/v1`, dataDir, permissionMode: "approve_all" },
    { HOME: base, OPENAI_API_KEY: "sk-journal-secret-123" },
    workspace,
    { resume: null, approvals: "refuse" },
  );
  const end = await session.submit("write a.txt");
  await session.close();
  await stub.close();
  assert.equal(end.type, "done");
  const [file] = readdirSync(join(dataDir, "sessions"));
  const text = readFileSync(join(dataDir, "sessions", file ?? ""), "utf8");
  const types = text
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);
  assert.equal(types[0], "session");
  assert.ok(types.includes("checkpoint"));
  assert.ok(types.includes("ledger"));
  assert.ok(types.filter((t) => t === "message").length >= 4);
  assert.match(text, /write_file a\.txt \(created, now 6 bytes\)/);
  assert.ok(!text.includes("sk-journal-secret-123"));
});

test("commands the model runs do not see nex's key, and the key never reaches the journal", async () => {
  const key = "sk-runtime-env-secret-0123456789";
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "bash", args: { command: "env" } }),
      openaiText(`I saw ${key} somewhere`),
    ],
  });
  const { base, workspace, dataDir } = dirs();
  const { session } = await openSession(
    { model: "m", baseUrl: `${stub.url}/v1`, dataDir, permissionMode: "approve_all" },
    { HOME: base, PATH: process.env.PATH, OPENAI_API_KEY: key },
    workspace,
    { resume: null, approvals: "refuse" },
  );
  await session.submit("show the environment");
  await session.close();
  await stub.close();
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /PATH=/, "the command ran and its output went back");
  assert.ok(!second.includes(key), "the key is not in the command's environment");
  const [file] = readdirSync(join(dataDir, "sessions"));
  assert.ok(!readFileSync(join(dataDir, "sessions", file ?? ""), "utf8").includes(key));
});

test("each prompt's changes get their own checkpoint, so undo reverts one prompt and keeps the user's edit before it", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "notes.txt", content: "v1\n" } }),
      openaiText("wrote v1"),
      openaiToolCalls([
        { name: "read_file", args: { path: "notes.txt" } },
        { name: "write_file", args: { path: "notes.txt", content: "v3\n" } },
      ]),
      openaiText("wrote v3"),
    ],
  });
  const { base, workspace, dataDir } = dirs();
  const { session } = await openSession(
    { model: "m", baseUrl: `${stub.url}/v1`, dataDir, permissionMode: "approve_all" },
    { HOME: base, PATH: process.env.PATH },
    workspace,
    { resume: null, approvals: "refuse" },
  );
  await session.submit("write v1");
  writeFileSync(join(workspace, "notes.txt"), "v2 by the user\n");
  await session.submit("write v3");
  const report = await session.undo(1);
  await session.close();
  await stub.close();
  assert.equal(
    readFileSync(join(workspace, "notes.txt"), "utf8"),
    "v2 by the user\n",
    report.report,
  );
});

test("closing a session while a task runs waits for the task to end and journals its end", async () => {
  const stub = await startStubEndpoint({ handler: () => ({ type: "hang" }) });
  const { base, workspace, dataDir } = dirs();
  const { session } = await openSession(
    { model: "m", baseUrl: `${stub.url}/v1`, dataDir },
    { HOME: base },
    workspace,
    { resume: null, approvals: "refuse" },
  );
  const running = session.submit("hello");
  while (stub.requestsTo("/v1/chat/completions").length === 0)
    await new Promise((r) => setTimeout(r, 10));
  await session.close();
  const end = await running;
  await stub.close();
  assert.equal(end.type, "aborted");
  const [file] = readdirSync(join(dataDir, "sessions"));
  assert.match(readFileSync(join(dataDir, "sessions", file ?? ""), "utf8"), /"type":"aborted"/);
});

test("a fault during a task (here a listener that throws) ends it with an error event, never a rejection", async () => {
  const stub = await startStubEndpoint({ scripts: [openaiText("hi")] });
  const { base, workspace, dataDir } = dirs();
  const { session } = await openSession(
    { model: "m", baseUrl: `${stub.url}/v1`, dataDir },
    { HOME: base },
    workspace,
    { resume: null, approvals: "refuse" },
  );
  const seen: string[] = [];
  session.subscribe((event) => {
    seen.push(event.type);
    if (event.type === "request_started") throw new Error("a renderer bug");
  });
  const end = await session.submit("hello");
  await session.close();
  await stub.close();
  assert.equal(end.type, "error");
  assert.equal(seen.at(-1), "error");
});

test("clear starts a fresh conversation: the model sees no earlier message, must read files again, and a resume starts after it", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "notes.txt" } }),
      openaiText("read it"),
      openaiToolCall({ name: "write_file", args: { path: "notes.txt", content: "replaced\n" } }),
      openaiText("could not write"),
      openaiText("resumed fine"),
    ],
  });
  const { base, workspace, dataDir } = dirs();
  const original = "line one\nline two\n";
  writeFileSync(join(workspace, "notes.txt"), original);
  const flags = {
    model: "m",
    baseUrl: `${stub.url}/v1`,
    dataDir,
    permissionMode: "approve_all" as const,
  };
  const { session } = await openSession(flags, { HOME: base }, workspace, {
    resume: null,
    approvals: "refuse",
  });
  assert.equal((await session.submit("SECRET-BEFORE-CLEAR read notes.txt")).type, "done");
  const cleared = await session.clear();
  assert.equal(cleared.cleared, true);
  assert.match(cleared.line, /fresh conversation/);
  assert.equal((await session.submit("overwrite notes.txt")).type, "done");
  await session.close();

  const calls = stub.requestsTo("/v1/chat/completions");
  const afterClear = JSON.stringify(calls[2]?.body);
  assert.ok(
    !afterClear.includes("SECRET-BEFORE-CLEAR"),
    "the first request after clear carries no earlier message",
  );
  assert.match(JSON.stringify(calls[3]?.body), /has not read|read it first|read_file/i);
  assert.equal(readFileSync(join(workspace, "notes.txt"), "utf8"), original);

  const resumed = await openSession(flags, { HOME: base }, workspace, {
    resume: "last",
    approvals: "refuse",
  });
  assert.equal((await resumed.session.submit("carry on")).type, "done");
  await resumed.session.close();
  await stub.close();
  const resumedBody = JSON.stringify(stub.requestsTo("/v1/chat/completions")[4]?.body);
  assert.ok(!resumedBody.includes("SECRET-BEFORE-CLEAR"), "a resume starts after the clear");
  assert.match(resumedBody, /overwrite notes\.txt/);
});

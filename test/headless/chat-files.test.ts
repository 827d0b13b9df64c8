// `nex --chat DIR` driven by a test that plays workgraph's side from docs/chat-files.md: it appends
// lines to inbox.jsonl while nex runs, reads outbox.jsonl and .coordinator-cursor, kills nex
// mid-reply, and races two handlers, against the stub endpoint and real files.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { chatArgs, outbox, until } from "../support/chat-folder.ts";
import { makeSandbox, startNex } from "../support/cli.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { hang, openaiText, status } from "../support/stub-scripts.ts";

type Body = { messages: Array<{ role: string; content: unknown }> };

/** Answers "answer: <last user text>", or never answers when the text says HANG. */
async function chatStub() {
  return startStubEndpoint({
    handler: (request) => {
      if (!request.path.endsWith("/chat/completions")) return status(404);
      const last = JSON.stringify((request.body as Body).messages.at(-1)?.content ?? "");
      // A resumed turn after a crash carries the cut message too (consecutive user messages are one turn).
      if (last.includes("HANG") && !last.includes("previous handler")) return hang();
      if (last.includes("STREAM"))
        return openaiText("partial words", {
          end: "hang",
          finishReason: null,
          includeDone: false,
          usage: null,
        });
      const said = /say ([a-z0-9-]+)/.exec(last)?.[1] ?? "something";
      return openaiText(`answer: ${said}`);
    },
  });
}

function setUp(url: string) {
  const box = makeSandbox();
  // Outside the workspace, as the trust rules ask: a folder of the test's own.
  const chat = scratchDir("nex-chat-");
  const args = chatArgs(chat, url, box.dataDir);
  return { box, chat, args, env: { ...box.env, OPENAI_API_KEY: "k" } };
}

function send(chat: string, id: number, content: string, extra: Record<string, unknown> = {}) {
  appendFileSync(
    join(chat, "inbox.jsonl"),
    `${JSON.stringify({ id, timestamp: new Date().toISOString(), role: "user", content, request_id: `r${id}`, ...extra })}\n`,
  );
}

test("--chat: lines appended while nex runs are answered in order, each once, with its request_id; the cursor follows", async () => {
  const stub = await chatStub();
  const { box, chat, args, env } = setUp(stub.url);
  send(chat, 1, "please say one");
  const nex = startNex(args, { cwd: box.workspace, env });
  await until(() => outbox(chat).length === 1, "the first reply");
  appendFileSync(join(chat, "inbox.jsonl"), "not json\n");
  send(chat, 2, "please say two");
  send(chat, 3, "please say three");
  await until(() => outbox(chat).length === 3, "three replies");
  nex.child.kill("SIGTERM");
  const result = await nex.done;
  await stub.close();
  const replies = outbox(chat);
  assert.deepEqual(
    replies.map((r) => [r.id, r.role, r.request_id, r.content]),
    [
      [1, "coordinator", "r1", "answer: one"],
      [2, "coordinator", "r2", "answer: two"],
      [3, "coordinator", "r3", "answer: three"],
    ],
  );
  assert.equal(readFileSync(join(chat, ".coordinator-cursor"), "utf8").trim(), "3");
  assert.equal(existsSync(join(chat, ".streaming")), false);
  assert.equal(existsSync(join(chat, ".handler.pid")), false, "the lock is released on exit");
  assert.match(result.stderr, /inbox\.jsonl line 2 is not JSON/);
  // One conversation: the third request carries the first two turns.
  const third = JSON.stringify(stub.requestsTo("/v1/chat/completions")[2]?.body);
  assert.match(third, /say one[\s\S]*answer: one[\s\S]*say two[\s\S]*say three/);
});

test("--chat: nex killed mid-reply answers the message once after a restart; a reply written before a crash is not sent again", async () => {
  const stub = await chatStub();
  const { box, chat, args, env } = setUp(stub.url);
  send(chat, 1, "HANG then say one");
  const first = startNex(args, { cwd: box.workspace, env });
  await until(() => stub.requestsTo("/v1/chat/completions").length === 1, "the first request");
  first.child.kill("SIGKILL");
  await first.done;
  assert.deepEqual(outbox(chat), [], "no reply for a turn that did not end");
  assert.equal(existsSync(join(chat, ".handler.pid")), true, "a killed handler leaves its lock");
  // A crash after a reply was written but before the cursor moved: r2 has its reply already.
  send(chat, 2, "please say two");
  appendFileSync(
    join(chat, "outbox.jsonl"),
    `${JSON.stringify({ id: 1, role: "coordinator", content: "answer: two", request_id: "r2" })}\n`,
  );
  send(chat, 3, "please say three");
  const second = startNex(args, { cwd: box.workspace, env });
  await until(() => outbox(chat).length === 3, "the replies after the restart").catch((e) => {
    second.child.kill("SIGKILL");
    throw new Error(`${e.message}: ${second.stderrSoFar()}`);
  });
  second.child.kill("SIGTERM");
  const result = await second.done;
  await stub.close();
  assert.match(result.stderr, /serving the chat/);
  const replies = outbox(chat);
  assert.deepEqual(
    replies.map((r) => [r.id, r.request_id, r.content]),
    [
      [1, "r2", "answer: two"],
      [2, "r1", "answer: one"],
      [3, "r3", "answer: three"],
    ],
  );
  const requests = stub.requestsTo("/v1/chat/completions").map((r) => JSON.stringify(r.body));
  assert.equal(requests.length, 3, "r2 was not asked again");
  assert.match(requests[1] as string, /previous handler of this chat stopped/);
  assert.equal(readFileSync(join(chat, ".coordinator-cursor"), "utf8").trim(), "3");
});

test("--chat: two handlers started together: one serves, the other names it; a dead holder's lock is taken over; a release marker hands over", async () => {
  const stub = await chatStub();
  const { box, chat, args, env } = setUp(stub.url);
  const a = startNex(args, { cwd: box.workspace, env });
  const b = startNex(args, { cwd: box.workspace, env });
  const loser = await Promise.race([a.done.then(() => a), b.done.then(() => b)]);
  const winner = loser === a ? b : a;
  const lost = await loser.done;
  assert.equal(lost.code, 3, lost.stderr);
  assert.match(
    lost.stderr,
    new RegExp(`served by another handler \\(pid ${winner.child.pid}, chat-nex`),
  );
  send(chat, 1, "please say one");
  await until(() => outbox(chat).length === 1, "the winner's reply");
  writeFileSync(join(chat, ".handler.release-requested"), `${new Date().toISOString()}\n`);
  const handed = await winner.done;
  assert.equal(handed.code, 0, handed.stderr);
  assert.match(handed.stderr, /release was requested/);
  assert.equal(existsSync(join(chat, ".handler.pid")), false);

  // A lock whose process is gone.
  const dead = spawn(process.execPath, ["-e", ""]);
  await new Promise((r) => dead.on("exit", r));
  writeFileSync(join(chat, ".handler.pid"), `${dead.pid}\n2026-01-01T00:00:00Z\nchat-nex\n`);
  const c = startNex(args, { cwd: box.workspace, env });
  send(chat, 2, "please say two");
  await until(() => outbox(chat).length === 2, "the reply after the takeover");
  assert.equal(
    readFileSync(join(chat, ".handler.pid"), "utf8").split("\n")[0],
    String(c.child.pid),
  );
  assert.equal(existsSync(join(chat, ".handler.release-requested")), false);
  c.child.kill("SIGTERM");
  await c.done;
  await stub.close();
  assert.deepEqual(
    outbox(chat).map((r) => r.request_id),
    ["r1", "r2"],
  );
});

test("--chat: an urgent message cancels the running turn and is answered at once; the cancelled one gets an interrupted reply", async () => {
  const stub = await chatStub();
  const { box, chat, args, env } = setUp(stub.url);
  send(chat, 1, "STREAM and never end");
  send(chat, 2, "please say later");
  const nex = startNex(args, { cwd: box.workspace, env });
  // The reply so far is in .streaming while the turn runs.
  const streaming = join(chat, ".streaming");
  await until(
    // Redaction holds the last word back until the next one shows it is no secret.
    () => existsSync(streaming) && readFileSync(streaming, "utf8").startsWith("partial"),
    "the partial reply",
  );
  send(chat, 3, "please say now", { urgent: true });
  await until(() => outbox(chat).length === 3, "three replies");
  nex.child.kill("SIGTERM");
  await nex.done;
  await stub.close();
  const replies = outbox(chat);
  assert.deepEqual(
    replies.map((r) => [r.request_id, r.role]),
    [
      ["r1", "system-error"],
      ["r3", "coordinator"],
      ["r2", "coordinator"],
    ],
  );
  assert.match(String(replies[0]?.content), /urgent message 3/);
  assert.equal(replies[1]?.content, "answer: now");
});

test("--chat: a chat folder inside the workspace with no sandbox to hold it, or writable by others, is refused before anything runs", async () => {
  const stub = await chatStub();
  const { box, args, env } = setUp(stub.url);
  const inside = join(box.workspace, ".wg", "chat", "c1");
  mkdirSync(inside, { recursive: true });
  const refused = await startNex(["--chat", inside, "--sandbox", "off", ...args.slice(2)], {
    cwd: box.workspace,
    env,
  }).done;
  assert.equal(refused.code, 3);
  assert.match(refused.stderr, /inside the workspace[\s\S]*speak as the user/);
  const open = scratchDir("nex-chat-open-");
  chmodSync(open, 0o777);
  const shared = await startNex(["--chat", open, ...args.slice(2)], { cwd: box.workspace, env })
    .done;
  await stub.close();
  assert.equal(shared.code, 3);
  assert.match(shared.stderr, /writable by other users \(mode 777\)/);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 0);
});

test("--chat: two handlers taking over the same stale lock at once: exactly one serves", async () => {
  const stub = await chatStub();
  const { box, chat, args, env } = setUp(stub.url);
  const dead = spawn(process.execPath, ["-e", ""]);
  await new Promise((r) => dead.on("exit", r));
  writeFileSync(join(chat, ".handler.pid"), `${dead.pid}\n2026-01-01T00:00:00Z\nchat-nex\n`);
  const a = startNex(args, { cwd: box.workspace, env });
  const b = startNex(args, { cwd: box.workspace, env });
  const loser = await Promise.race([a.done.then(() => a), b.done.then(() => b)]);
  const winner = loser === a ? b : a;
  const lost = await loser.done;
  assert.equal(lost.code, 3, lost.stderr);
  assert.match(lost.stderr, new RegExp(`served by another handler \\(pid ${winner.child.pid}`));
  send(chat, 1, "please say one");
  await until(() => outbox(chat).length === 1, "the winner's reply");
  assert.equal(
    readFileSync(join(chat, ".handler.pid"), "utf8").split("\n")[0],
    String(winner.child.pid),
  );
  winner.child.kill("SIGTERM");
  await winner.done;
  await stub.close();
  assert.equal(existsSync(join(chat, ".handler.pid.takeover")), false);
});

// Approvals asked through the chat files, tested as workgraph's side: a real `nex --chat` against the
// stub endpoint asks with an `approval-request` outbox line and waits; the test answers with inbox
// lines (typed `approve N`, or `approval_id` + `answer`), lets one time out, sends stale answers, and
// checks what ran, what the model was told, and what the outbox says.
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { chatArgs, outbox, until } from "../support/chat-folder.ts";
import { makeSandbox, startNex } from "../support/cli.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script } from "../support/stub-scripts.ts";

const write = (path: string, content: string): Script =>
  openaiToolCall({ name: "write_file", args: { path, content } });

async function setUp(scripts: Script[], extra: string[] = []) {
  const stub = await startStubEndpoint({ scripts });
  const box = makeSandbox();
  const chat = scratchDir("nex-chat-");
  const nex = startNex([...chatArgs(chat, stub.url, box.dataDir), ...extra], {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: "k" },
  });
  const send = (line: Record<string, unknown>) =>
    appendFileSync(join(chat, "inbox.jsonl"), `${JSON.stringify({ role: "user", ...line })}\n`);
  const lines = (role: string) => outbox(chat).filter((line) => line.role === role);
  const stop = async () => {
    nex.child.kill("SIGTERM");
    const result = await nex.done;
    await stub.close();
    return result;
  };
  return { stub, box, chat, nex, send, lines, stop };
}

test("--chat approvals: a question goes to the outbox; `approve N` runs the step once, `always N` for the session, a structured deny refuses it; each answer is acknowledged", async () => {
  const { stub, box, chat, send, lines, stop } = await setUp([
    write("a.txt", "first\n"),
    write("b.txt", "second\n"),
    write("c.txt", "third\n"),
    write("d.txt", "fourth\n"),
    openaiText("all done"),
  ]);
  try {
    send({ id: 1, content: "write the files", request_id: "r1" });
    await until(() => lines("approval-request").length === 1, "the first question");
    const first = lines("approval-request")[0] ?? {};
    assert.equal(first.request_id, "r1", "the question carries the message's request id");
    assert.equal(first.in_reply_to, 1);
    assert.equal(first.approval_id, first.id, "the approval's number is its line's id");
    assert.equal(first.tool, "write_file");
    assert.match(String(first.preview), /\+first/);
    assert.match(String(first.content), new RegExp(`approve ${first.id}\` \\(this once\\)`));
    assert.ok(!Number.isNaN(Date.parse(String(first.expires_at))));
    assert.equal(existsSync(join(box.workspace, "a.txt")), false, "nothing runs before the answer");
    // The cursor does not pass a message whose turn is waiting.
    assert.equal(existsSync(join(chat, ".coordinator-cursor")), false);
    send({ id: 2, content: `approve ${first.id}`, request_id: "r2" });
    await until(() => lines("approval-request").length === 2, "the second question");
    assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "first\n");
    const second = lines("approval-request")[1] ?? {};
    // An answer to the first question again approves nothing now.
    send({ id: 3, content: `approve ${first.id}`, request_id: "r3" });
    await until(
      () => outbox(chat).some((line) => line.request_id === "r3"),
      "the stale answer's line",
    );
    assert.equal(existsSync(join(box.workspace, "b.txt")), false);
    send({ id: 4, content: `Always ${second.id}`, request_id: "r4" });
    // Approved for the session: c.txt is written without a question; d.txt too.
    await until(
      () => outbox(chat).some((line) => line.request_id === "r1" && line.role === "coordinator"),
      "the reply",
    );
  } finally {
    const result = await stop();
    assert.doesNotMatch(result.stderr, /skipped/);
  }
  assert.equal(lines("approval-request").length, 2, "always: no third question");
  for (const name of ["b.txt", "c.txt", "d.txt"]) assert.ok(existsSync(join(box.workspace, name)));
  const byRequest = Object.fromEntries(outbox(chat).map((line) => [line.request_id, line]));
  assert.equal(byRequest.r2?.role, "approval-answered");
  assert.match(String(byRequest.r2?.content), /^Approved once: write_file/);
  assert.equal(byRequest.r3?.role, "system-error");
  assert.match(
    String(byRequest.r3?.content),
    /No approval \d+ is waiting[\s\S]*nothing was approved/,
  );
  assert.match(String(byRequest.r4?.content), /^Approved for the rest of this session/);
  assert.equal(readFileSync(join(chat, ".coordinator-cursor"), "utf8").trim(), "4");
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 5);
});

test("--chat approvals: an answer written before its question approves nothing; a structured deny refuses the step and the model hears the user denied it", async () => {
  const { stub, box, chat, send, lines, stop } = await setUp([
    write("x.txt", "x\n"),
    openaiText("ok"),
  ]);
  try {
    // Written ahead for the number the question will get (its acknowledgement is line 1).
    send({ id: 1, content: "always 2", request_id: "r1" });
    send({ id: 2, content: "write x", request_id: "r2" });
    await until(() => lines("approval-request").length === 1, "the question");
    const asked = lines("approval-request")[0] ?? {};
    assert.equal(asked.id, 2);
    assert.equal(existsSync(join(box.workspace, "x.txt")), false);
    send({ id: 3, request_id: "r3", approval_id: asked.id, answer: "deny" });
    await until(() => lines("coordinator").length === 1, "the reply");
  } finally {
    await stop();
  }
  assert.equal(outbox(chat)[0]?.role, "system-error");
  assert.equal(existsSync(join(box.workspace, "x.txt")), false);
  assert.match(
    toolResults(stub.requestsTo("/v1/chat/completions")[1])[0] ?? "",
    /the user denied it in the chat/,
  );
  assert.equal(
    lines("approval-answered")[0]?.content,
    `Denied: write_file: ${String(lines("approval-request")[0]?.summary)}`,
  );
});

test("--chat approvals: nobody answering within --approval-timeout denies the step, and the model, the reply and stderr say so", async () => {
  const { stub, box, lines, send, stop } = await setUp(
    [write("late.txt", "late\n"), openaiText("could not write it")],
    ["--approval-timeout", "2"],
  );
  let stderr = "";
  try {
    send({ id: 1, content: "write late", request_id: "r1" });
    await until(() => lines("coordinator").length === 1, "the reply after the timeout");
  } finally {
    stderr = (await stop()).stderr;
  }
  const asked = lines("approval-request")[0] ?? {};
  assert.match(String(asked.content), /within 2 s/);
  assert.equal(existsSync(join(box.workspace, "late.txt")), false);
  const why = `nobody answered approval ${asked.id} in the chat within 2 s`;
  assert.ok(toolResults(stub.requestsTo("/v1/chat/completions")[1])[0]?.includes(why));
  assert.ok(
    String(lines("coordinator")[0]?.content).includes(`[nex: approval ${asked.id} (write_file`),
  );
  assert.ok(String(lines("coordinator")[0]?.content).includes(why));
  assert.ok(stderr.includes(why), stderr);
  // An answer after the timeout approves nothing.
});

test("--chat approvals: --approval-timeout 0 asks nothing and refuses as nex run does; a bad value is a usage error", async () => {
  const { box, lines, send, stop } = await setUp(
    [write("n.txt", "n\n"), openaiText("refused")],
    ["--approval-timeout", "0"],
  );
  try {
    send({ id: 1, content: "write n", request_id: "r1" });
    await until(() => lines("coordinator").length === 1, "the reply");
  } finally {
    await stop();
  }
  assert.equal(lines("approval-request").length, 0);
  assert.equal(existsSync(join(box.workspace, "n.txt")), false);
  const bad = await setUp([], ["--approval-timeout", "soon"]);
  const result = await bad.nex.done;
  await bad.stub.close();
  assert.equal(result.code, 2);
  assert.match(result.stderr, /--approval-timeout soon is not a number of seconds/);
});

// A chat reader (workgraph's `wg tui`) sees what nex does while it answers: each tool call of the turn
// as a box in `.streaming`, and the reply's steps in the outbox's `full_response` beside the answer.
import assert from "node:assert/strict";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { chatTranscript } from "../../src/headless/chat-files/chat-transcript.ts";
import { outbox, until } from "../support/chat-folder.ts";
import { makeSandbox, startNex } from "../support/cli.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

test("--chat: a running turn's tool call shows in .streaming as a box with its command and output; the outbox keeps the answer and, in full_response, the steps", async () => {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let asked = 0;
  const stub = await startStubEndpoint({
    handler: async () => {
      asked += 1;
      if (asked === 1)
        return openaiToolCall({
          name: "bash",
          args: { command: "printf 'first line\\nsecond line\\n'" },
          text: "Let me look.",
        });
      // The answer waits until the test has read the box in .streaming.
      await gate;
      return openaiText("Two lines.");
    },
  });
  const box = makeSandbox();
  const chat = scratchDir("nex-chat-");
  appendFileSync(
    join(chat, "inbox.jsonl"),
    `${JSON.stringify({ id: 1, role: "user", content: "count the lines", request_id: "r1" })}\n`,
  );
  const nex = startNex(
    ["--chat", chat, "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`].concat([
      "--data-dir",
      box.dataDir,
    ]),
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "k" } },
  );
  const streaming = join(chat, ".streaming");
  const read = () => (existsSync(streaming) ? readFileSync(streaming, "utf8") : "");
  let live = "";
  try {
    await until(() => read().includes("└─"), "the finished tool call's box in .streaming");
    live = read();
    release();
    await until(() => outbox(chat).length === 1, "the reply");
  } finally {
    release();
    nex.child.kill("SIGTERM");
    const ended = await nex.done;
    await stub.close();
    if (!live) console.error(ended.stderr, read(), JSON.stringify(outbox(chat)));
  }
  assert.match(
    live,
    /^Let me look\.\n\n┌─ bash ─+\n│ \$ printf 'first line\\nsecond line\\n'\n│ Exit code 0\. .*\n│ first line\n│ second line\n└─\n/,
  );
  const [reply] = outbox(chat);
  assert.equal(reply?.content, "Two lines.");
  assert.match(String(reply?.full_response), /┌─ bash[\s\S]*│ first line[\s\S]*└─\n\nTwo lines\.$/);
});

test("a box keeps a result's first lines and counts the rest; a refused call and a child's steps are told or left out", () => {
  const transcript = chatTranscript();
  transcript.add({ type: "tool_call_started", callId: "a", name: "grep", args: { pattern: "x" } });
  transcript.add({ type: "tool_progress", callId: "a", name: "grep", message: "searching" });
  const lines = Array.from({ length: 500 }, (_, i) => `match ${i} ${"y".repeat(400)}`).join("\n");
  transcript.add({
    type: "tool_result",
    callId: "a",
    name: "grep",
    isError: false,
    code: null,
    content: lines,
    details: null,
  });
  transcript.add({
    type: "tool_call_refused",
    callId: "b",
    name: "write_file",
    cause: "denied",
    reason: "needs approval",
    bytesReceived: 0,
  });
  const child = { id: "c1", parentCallId: "a", kind: "explore" };
  assert.equal(
    transcript.add({ type: "text_delta", text: "a child's words", agent: child }),
    false,
  );
  const text = transcript.text();
  assert.match(text, /│ pattern="x"\n│ … searching\n│ match 0 y+…\n/);
  assert.match(text, /│ … 488 more lines\n└─\n/);
  assert.equal(
    text.split("\n").filter((line) => line.length > 250).length,
    0,
    "no line is longer than a box line",
  );
  assert.match(text, /┌─ write_file ─+\n│ ✗ refused, not run: needs approval\n└─/);
  assert.doesNotMatch(text, /a child's words/);
  assert.equal(transcript.hasTools(), true);
});

test("a transcript of a thousand tool calls stays bounded and keeps its end", () => {
  const transcript = chatTranscript();
  for (let i = 0; i < 1000; i++) {
    transcript.add({
      type: "tool_call_started",
      callId: `c${i}`,
      name: "bash",
      args: { command: `step ${i}` },
    });
    transcript.add({
      type: "tool_result",
      callId: `c${i}`,
      name: "bash",
      isError: false,
      code: null,
      content: "z".repeat(300),
      details: null,
    });
  }
  transcript.add({ type: "text_delta", text: "All done." });
  const text = transcript.text();
  assert.ok(text.length <= 128 * 1024 + 100, `${text.length} characters`);
  assert.match(text, /^\[… the start of this reply's steps is left out\]\n/);
  assert.match(text, /\$ step 999[\s\S]*All done\.$/);
});

test("calls that run side by side keep a box each, and a running command's latest lines show in its box until its result", () => {
  const transcript = chatTranscript();
  const started = (callId: string, path: string) =>
    transcript.add({ type: "tool_call_started", callId, name: "read_file", args: { path } });
  const result = (callId: string, content: string) =>
    transcript.add({
      type: "tool_result",
      callId,
      name: "read_file",
      isError: false,
      code: null,
      content,
      details: null,
    });
  started("a", "a.txt");
  started("b", "b.txt");
  transcript.add({
    type: "tool_call_started",
    callId: "c",
    name: "bash",
    args: { command: "make" },
  });
  transcript.add({
    type: "tool_output",
    callId: "c",
    name: "bash",
    tail: "cc -c x.c\ncc -c y.c\n\u001b[31mlinking\u001b[0m\n",
    lines: 3,
    bytes: 40,
  });
  result("b", "contents of b");
  result("a", "contents of a");
  const live = transcript.text();
  assert.match(
    live,
    /│ path="a\.txt"\n│ contents of a\n└─\n\n┌─ read_file ─+\n│ path="b\.txt"\n│ contents of b\n└─\n/,
  );
  assert.match(live, /┌─ bash ─+\n│ \$ make\n│ cc -c x\.c\n│ cc -c y\.c\n│ linking\n$/);
  transcript.add({
    type: "tool_result",
    callId: "c",
    name: "bash",
    isError: false,
    code: null,
    content: "Exit code 0.",
    details: null,
  });
  assert.match(transcript.text(), /│ \$ make\n│ Exit code 0\.\n└─\n\n$/);
});

test("--chat: nex's key, printed by a command the model runs, reaches neither .streaming nor the outbox", async () => {
  const key = "sk-proj-Zq81mXv02LrT5sYwBn7KdPe3HuJcFo9A";
  let asked = 0;
  const stub = await startStubEndpoint({
    handler: () => {
      asked += 1;
      return asked === 1
        ? openaiToolCall({ name: "bash", args: { command: "cat notes.txt" } })
        : openaiText("Read it.");
    },
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "notes.txt"), `deploy token: ${key}\n`);
  const chat = scratchDir("nex-chat-");
  appendFileSync(
    join(chat, "inbox.jsonl"),
    `${JSON.stringify({ id: 1, role: "user", content: "read the notes", request_id: "r1" })}\n`,
  );
  const streamed: string[] = [];
  const streaming = join(chat, ".streaming");
  const nex = startNex(
    ["--chat", chat, "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`].concat([
      "--data-dir",
      box.dataDir,
    ]),
    { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: key } },
  );
  try {
    await until(() => {
      if (existsSync(streaming)) streamed.push(readFileSync(streaming, "utf8"));
      return outbox(chat).length === 1;
    }, "the reply");
  } finally {
    nex.child.kill("SIGTERM");
    await nex.done;
    await stub.close();
  }
  const reply = JSON.stringify(outbox(chat));
  assert.match(reply, /┌─ bash[\s\S]*deploy token: \[redacted: OPENAI_API_KEY\]/);
  assert.doesNotMatch(reply, /Zq81mXv02LrT5sYwBn7KdPe3HuJcFo9A/);
  for (const text of streamed) assert.doesNotMatch(text, /Zq81mXv02LrT5sYwBn7KdPe3HuJcFo9A/);
});

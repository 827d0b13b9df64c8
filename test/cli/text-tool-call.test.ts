// Qwen2.5-Coder 1.5B on llama-server --jinja (measured in bench/eval) writes most of its calls as a
// fenced JSON object instead of its chat template's <tool_call> tags, and again when told: no server
// parses that. A reply that is nothing but such calls to the session's tools runs as those calls;
// prose around JSON stays an answer; a JSON "call" nex cannot run gets one reminder, then the run ends.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

const fenced = (value: unknown) => `\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\``;
const writeHello = { name: "write_file", arguments: { path: "hello.txt", content: "hi\n" } };

function runArgs(url: string, dataDir: string): string[] {
  return ["run", "--yes", "--model", "m", "--base-url", `${url}/v1`, "--data-dir", dataDir, "go"];
}

type WireMessage = { role: string; content?: unknown; tool_calls?: unknown[] };

test("a reply that is only a fenced JSON call to a session tool runs as that call, and goes back to the model as a real call", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText(fenced(writeHello)), openaiText("Wrote hello.txt.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
  assert.match(result.stderr, /wrote its write_file call as JSON text/);
  const second = stub.requestsTo("/v1/chat/completions")[1]?.body as { messages: WireMessage[] };
  const assistant = second.messages.find((m) => m.role === "assistant");
  assert.equal(assistant?.tool_calls?.length, 1);
  assert.ok(
    second.messages.some((m) => m.role === "tool"),
    "the call's result goes back",
  );
});

test("two fenced JSON calls in one reply run in order; a JSON call among prose never runs: the model is told once, and its plain answer then ends the run", async () => {
  const two = `${fenced(writeHello)}\n${fenced({ name: "write_file", arguments: { path: "b.txt", content: "b" } })}`;
  const stub = await startStubEndpoint({
    scripts: [openaiText(two), openaiText("Both written.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "b.txt"), "utf8"), "b");

  const prose = await startStubEndpoint({
    scripts: [
      openaiText(`To create it you would send:\n${fenced(writeHello)}\nThat is all.`),
      openaiText("That was an example; nothing needs writing."),
    ],
  });
  const other = makeSandbox();
  const answered = await runNex(runArgs(prose.url, other.dataDir), {
    cwd: other.workspace,
    env: other.env,
  });
  await prose.close();
  assert.equal(answered.code, 0, answered.stderr);
  assert.equal(existsSync(join(other.workspace, "hello.txt")), false);
  assert.match(answered.stdout, /That was an example/);
  assert.match(
    JSON.stringify(prose.requestsTo("/v1/chat/completions")[1]?.body),
    /your reply wrote a write_file call as JSON inside other text, so nothing ran/,
  );
});

test("a JSON call whose arguments are not an object (Qwen2.5-Coder 1.5B sent todo_write a list) is refused with what arrived, as any call's, and never reported done", async () => {
  const broken = fenced({ name: "write_file", arguments: ["hello.txt", "hi"] });
  const stub = await startStubEndpoint({ handler: () => openaiText(broken) });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.notEqual(result.code, 0);
  assert.equal(existsSync(join(box.workspace, "hello.txt")), false);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /the arguments are an array, not a JSON object of write_file's parameters/i);
  assert.match(second, /arrived malformed/);
  assert.doesNotMatch(second, /arrived incomplete/);
});

test("a reply that is one JSON call to a tool that does not exist (Qwen2.5-Coder 0.5B invents them from the task) is told the session's tools once, not ended as done", async () => {
  const invented = fenced({ name: "stats.py", arguments: { input: "x" } });
  const stub = await startStubEndpoint({
    scripts: [openaiText(invented), openaiText(fenced(writeHello)), openaiText("Done.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /there is no tool named \\"stats.py\\"/);
  assert.match(second, /read_file/);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
});

test("an empty reply after some work (no text, no call) is asked once to go on or answer, not reported done with an empty answer", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText(fenced(writeHello)), openaiText(""), openaiText("Wrote hello.txt.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 3);
  assert.match(
    JSON.stringify(stub.requestsTo("/v1/chat/completions")[2]?.body),
    /your reply was empty/,
  );
  assert.match(result.stdout, /Wrote hello\.txt\./);
});

test("a bare JSON call closed by a stray fence (Qwen2.5-Coder 0.5B) runs as the call it is, not reminded as text", async () => {
  const stray = `${JSON.stringify(writeHello)}\n\`\`\``;
  const stub = await startStubEndpoint({ scripts: [openaiText(stray), openaiText("Wrote it.")] });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
});

test("a JSON call that does not parse (a brace missing) is told so once and asked again, not ended as the answer", async () => {
  const broken =
    '```json\n{"name": "write_file", "arguments": {"path": "hello.txt", "content": "hi\\n"}\n```';
  const stub = await startStubEndpoint({
    scripts: [openaiText(broken), openaiText(fenced(writeHello)), openaiText("Done.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /write_file call written as JSON text that is not valid JSON/);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
  assert.match(result.stdout, /Done\./);
});

test("a model told there is no such tool that calls it again ends the run as an error saying nothing ran, not as done; the reminder names the call it meant", async () => {
  const invented = fenced({ name: "stats.py", arguments: { content: "2 3" } });
  const stub = await startStubEndpoint({ handler: () => openaiText(invented) });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "stats.py"), "print(2 + 3)\n");
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.notEqual(result.code, 0);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /call read_file with \{\\"path\\": \\"stats.py\\"\}/);
  assert.match(result.stderr, /tool that does not exist \(stats\.py\), again after nex told it so/);
  assert.match(result.stderr, /task is not done/);
});

test("JSON calls one per line (Qwen2.5-Coder 0.5B: a read, then an edit) or listed with commas (r13) run in order as the calls they are, not told their JSON is broken", async () => {
  const read = { name: "read_file", arguments: { path: "greet.py" } };
  const edit = {
    name: "edit_file",
    arguments: { path: "greet.py", old_string: "Hello", new_string: "Hi" },
  };
  for (const listed of [
    `${JSON.stringify(read)}\n${JSON.stringify(edit)}`,
    `${JSON.stringify(read)}, ${JSON.stringify(edit)}`,
  ]) {
    const stub = await startStubEndpoint({
      scripts: [openaiText(listed), openaiText("Changed the greeting.")],
    });
    const box = makeSandbox();
    writeFileSync(join(box.workspace, "greet.py"), 'print("Hello")\n');
    const result = await runNex(runArgs(stub.url, box.dataDir), {
      cwd: box.workspace,
      env: box.env,
    });
    await stub.close();
    assert.equal(result.code, 0, result.stderr);
    assert.equal(readFileSync(join(box.workspace, "greet.py"), "utf8"), 'print("Hi")\n');
    assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
    assert.doesNotMatch(result.stderr, /not valid JSON/);
    assert.match(
      result.stderr,
      /wrote 2 calls \(read_file, edit_file\) as JSON text \(the whole reply\); nex runs them as the calls they are/,
    );
  }
});

test("a JSON call with its tool's schema as arguments and additionalProperties beside them (Qwen2.5-Coder 0.5B) runs as the call without arguments", async () => {
  const schemaCall = {
    name: "list_dir",
    arguments: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
    additionalProperties: false,
  };
  const stub = await startStubEndpoint({
    scripts: [openaiText(fenced(schemaCall)), openaiText("Listed.")],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "shapes.py"), "class Rectangle: pass\n");
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /shapes\.py/);
  assert.doesNotMatch(second, /Unknown argument|written as JSON text/);
});

test('a JSON call whose arguments are "null" (Qwen2.5-Coder 0.5B\'s list_dir) runs without arguments, not refused as malformed', async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText('{"name": "list_dir", "arguments": "null"}'), openaiText("Listed.")],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "utils.js"), "export const a = 1;\n");
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /utils\.js/);
  assert.doesNotMatch(second, /malformed|not a JSON object/);
});

test("a JSON call named by its tool and what it should do (`bash python3 main.py`, Qwen2.5-Coder 0.5B) runs as that tool's call", async () => {
  const named = fenced({ name: "bash printf", arguments: { command: "printf ran > out.txt" } });
  const stub = await startStubEndpoint({ scripts: [openaiText(named), openaiText("Ran it.")] });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "out.txt"), "utf8"), "ran");
  assert.doesNotMatch(result.stderr, /does not exist/);
});

test("a JSON call with other keys beside its name and arguments (Qwen2.5-Coder 0.5B copied todo_write's status) runs as its name and arguments", async () => {
  const call = { ...writeHello, content: "", status: "pending" };
  const stub = await startStubEndpoint({
    scripts: [openaiText(JSON.stringify(call)), openaiText("Wrote it.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
  assert.doesNotMatch(result.stderr, /instead of calling the tool/);
});

test('a JSON call followed by a stray object that is no call (`{"additionalProperties": false}`) runs as the call, never ends the task as done with the JSON as its answer', async () => {
  const reply = `${JSON.stringify(writeHello)}\n{"additionalProperties": false}`;
  const stub = await startStubEndpoint({ scripts: [openaiText(reply), openaiText("Wrote it.")] });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
  assert.match(result.stdout, /Wrote it\./);
});

test("a complete JSON call followed by a stray closing brace (Qwen2.5-Coder 0.5B) runs as the call, never ends the task as done with the JSON as its answer", async () => {
  const reply = `{\n  "name": "write_file",\n  "arguments": ${JSON.stringify(writeHello.arguments)}}\n}`;
  const stub = await startStubEndpoint({ scripts: [openaiText(reply), openaiText("Wrote it.")] });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
  assert.match(result.stdout, /Wrote it\./);
});

// r12 add-test-js (Qwen2.5-Coder 0.5B): a tool invented from a file's name, `clamp.test.js`, was
// answered "call read_file with {"path": "clamp.test.js"}" while the file was test/clamp.test.js;
// the model read the path it was given, which was not there. The reminder names where the file is,
// or says that no file of that name is in the workspace.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCalls } from "../support/stub-scripts.ts";

const invented = (name: string) => JSON.stringify({ name, arguments: { content: "x" } });

function runArgs(url: string, dataDir: string): string[] {
  return ["run", "--yes", "--model", "m", "--base-url", `${url}/v1`, "--data-dir", dataDir, "go"];
}

/** A run in a workspace whose only file is test/clamp.test.js. */
function runWithClampTest(url: string) {
  const box = makeSandbox();
  mkdirSync(join(box.workspace, "test"));
  writeFileSync(join(box.workspace, "test", "clamp.test.js"), "assert.equal(clamp(5, 0, 3), 3);\n");
  return runNex(runArgs(url, box.dataDir), { cwd: box.workspace, env: box.env });
}

test("a tool named after a file elsewhere in the workspace is answered with the file's real path, and the read of that path runs", async () => {
  const read = JSON.stringify({ name: "read_file", arguments: { path: "test/clamp.test.js" } });
  const stub = await startStubEndpoint({
    scripts: [openaiText(invented("clamp.test.js")), openaiText(read), openaiText("Read it.")],
  });
  const result = await runWithClampTest(stub.url);
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), "Read it.");
  const [, second, third] = stub
    .requestsTo("/v1/chat/completions")
    .map((request) => JSON.stringify(request.body));
  assert.match(second ?? "", /The file clamp\.test\.js is at test\/clamp\.test\.js/);
  assert.match(second ?? "", /call read_file with \{\\"path\\": \\"test\/clamp\.test\.js\\"\}/);
  assert.doesNotMatch(second ?? "", /\{\\"path\\": \\"clamp\.test\.js\\"\}/);
  assert.match(third ?? "", /clamp\(5, 0, 3\)/);
});

test("a tool named after a file that is nowhere in the workspace is told so, never sent to read it, and a second such call ends the run as an error", async () => {
  const stub = await startStubEndpoint({ handler: () => openaiText(invented("stats.py")) });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "main.py"), "print(1)\n");
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.notEqual(result.code, 0);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /No file named stats\.py is in the workspace/);
  assert.match(second, /call glob with \{\\"pattern\\": \\"\*\.py\\"\}/);
  assert.doesNotMatch(second, /\{\\"path\\": \\"stats\.py\\"\}/);
  assert.match(result.stderr, /tool that does not exist \(stats\.py\), again after nex told it so/);
});

test("a native call to a tool named after a file, beside a real call, is answered with the file's real path in its result; the real call runs", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCalls([
        { name: "list_dir", args: { path: "." }, id: "real" },
        { name: "clamp.test.js", args: { content: "x" }, id: "invented" },
      ]),
      openaiText("Listed."),
    ],
  });
  const result = await runWithClampTest(stub.url);
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = stub.requestsTo("/v1/chat/completions")[1]?.body as {
    messages: { role: string; tool_call_id?: string; content?: string }[];
  };
  const resultOf = (id: string) =>
    String(second.messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content);
  assert.match(resultOf("real"), /test\//, "the real call ran");
  const answer = resultOf("invented");
  assert.match(answer, /^Unknown tool `clamp\.test\.js`\. The tools are: .*read_file/);
  assert.match(answer, /The file clamp\.test\.js is at test\/clamp\.test\.js/);
  assert.match(answer, /call read_file with \{"path": "test\/clamp\.test\.js"\}/);
});

test("a native call to a tool named after a command is told how to run it with bash", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCalls([{ name: "npm test", args: {}, id: "invented" }]),
      openaiText("Will do."),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /Unknown tool `npm test`/);
  assert.match(second, /To run `npm test`, call bash with \{\\"command\\": \\"npm test\\"\}/);
});

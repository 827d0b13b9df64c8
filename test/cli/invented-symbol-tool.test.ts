// r12/r13 add-method-py (Qwen2.5-Coder 0.5B): a tool invented from a word of the task, `Rectangle`,
// was answered "To see the project's files, call list_dir"; the model invented it again. The reminder
// names the file that defines the word, and the read of that file runs; a word no file has is told so.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

const invented = (name: string) => JSON.stringify({ name, arguments: { width: 2, height: 3 } });

function runArgs(url: string, dataDir: string): string[] {
  return ["run", "--yes", "--model", "m", "--base-url", `${url}/v1`, "--data-dir", dataDir, "go"];
}

test("a tool named after a class of the workspace is answered with the file that defines it, and the read of that file runs", async () => {
  const read = JSON.stringify({ name: "read_file", arguments: { path: "geometry/shapes.py" } });
  const stub = await startStubEndpoint({
    scripts: [openaiText(invented("Rectangle")), openaiText(read), openaiText("Read it.")],
  });
  const box = makeSandbox();
  mkdirSync(join(box.workspace, "geometry"));
  writeFileSync(join(box.workspace, "README.md"), "Rectangle has a width.\n");
  writeFileSync(
    join(box.workspace, "geometry", "shapes.py"),
    "class Rectangle:\n    def __init__(self, w, h):\n        self.w = w  # width_marker\n",
  );
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout.trim(), "Read it.");
  const [, second, third] = stub
    .requestsTo("/v1/chat/completions")
    .map((request) => JSON.stringify(request.body));
  assert.match(
    second ?? "",
    /\\"Rectangle\\" is not a tool; it is defined in geometry\/shapes\.py \(line 1: class Rectangle:\)/,
  );
  assert.match(second ?? "", /call read_file with \{\\"path\\": \\"geometry\/shapes\.py\\"\}/);
  assert.match(third ?? "", /width_marker/);
});

test("a tool named after a word no file of the workspace has is told so, with no path to read", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText(invented("Stack")), openaiText("I will stop.")],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "main.py"), "print(1)\n");
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /\\"Stack\\" is not a tool, and no file in the workspace has that word/);
  assert.doesNotMatch(second, /\{\\"path\\":/);
});

test("the line a reminder quotes for a word of the code never carries nex's key, nor into the journal", async () => {
  const key = "sk-symhint-0123456789abcdefABCDEF";
  const stub = await startStubEndpoint({
    scripts: [openaiText(invented("OPENAI_API_KEY")), openaiText("Done.")],
  });
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "settings.py"), `OPENAI_API_KEY = "${key}"\n`);
  const result = await runNex(runArgs(stub.url, box.dataDir), {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: key },
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const second = stub.requestsTo("/v1/chat/completions")[1]?.rawBody ?? "";
  assert.match(second, /defined in settings\.py \(line 1: OPENAI_API_KEY = /);
  assert.ok(!second.includes(key), second);
  for (const name of readdirSync(box.dataDir, { recursive: true })) {
    const path = join(box.dataDir, String(name));
    if (statSync(path).isFile()) assert.ok(!readFileSync(path, "latin1").includes(key), path);
  }
});

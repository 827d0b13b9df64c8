// r12 rename-py (Qwen2.5-Coder 0.5B on llama-server): `>{"name": "list_dir", ...}`, one stray mark
// before a JSON call, ended the run as done, exit 0, with the JSON as the answer and nothing run.
// Marks and template tokens around a call leave it the reply's call; a call among words never runs
// and is never the answer: told once, then the run ends as an error that says nothing ran.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

const write = JSON.stringify({
  name: "write_file",
  arguments: { path: "hello.txt", content: "hi\n" },
});

function runArgs(url: string, dataDir: string): string[] {
  return ["run", "--yes", "--model", "m", "--base-url", `${url}/v1`, "--data-dir", dataDir, "go"];
}

test("a JSON call with a stray '>' before it and a template token after it runs as the call, and the run ends on the model's real answer", async () => {
  const stub = await startStubEndpoint({
    scripts: [openaiText(`>${write}<|im_end|>\n`), openaiText("Wrote hello.txt.")],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
  assert.match(result.stderr, /wrote its write_file call as JSON text/);
  assert.equal(result.stdout.trim(), "Wrote hello.txt.");
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /"role":"tool"/);
});

test("a JSON call after a line of prose, twice, never runs and ends the run as an error saying so, not as done", async () => {
  const prose = `Let me write the file:\n${write}`;
  const stub = await startStubEndpoint({ handler: () => openaiText(prose) });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.notEqual(result.code, 0);
  assert.equal(existsSync(join(box.workspace, "hello.txt")), false);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /your reply wrote a write_file call as JSON inside other text/);
  assert.match(result.stderr, /inside other text instead of calling the tool; nex told it so/);
  assert.match(
    result.stderr,
    /write_file call as JSON text instead of calling the tool, again after nex told it to make a real tool call, so nex ran nothing and the task is not done/,
  );
  assert.match(result.stderr, /"result":"failed"/);
  assert.doesNotMatch(result.stdout, /Let me write the file/);
});

// A small model (Qwen2.5-Coder 1.5B on llama-server, measured in bench/eval) now and then writes its
// call as a fenced JSON block instead of its chat format's tool call: no server parses that. nex
// tells the model once and asks again, rather than ending the task with advice about a server that
// is set up right.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

const jsonCall =
  '```json\n{\n  "name": "write_file",\n  "arguments": {"path": "hello.txt", "content": "hi\\n"}\n}\n```';

function runArgs(url: string, dataDir: string): string[] {
  return ["run", "--yes", "--model", "m", "--base-url", `${url}/v1`, "--data-dir", dataDir, "go"];
}

test("a call written as a JSON block is answered with one reminder; the model's real call then runs and the task ends done", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiText(jsonCall),
      openaiToolCall({ name: "write_file", args: { path: "hello.txt", content: "hi\n" } }),
      openaiText("Wrote hello.txt."),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "hello.txt"), "utf8"), "hi\n");
  const second = JSON.stringify(stub.requestsTo("/v1/chat/completions")[1]?.body);
  assert.match(second, /written as JSON text, so nothing ran/);
  assert.match(result.stderr, /told it so and asks again/);
});

test("JSON text again right after the reminder ends the run, not reported done, without blaming the server's settings alone", async () => {
  const stub = await startStubEndpoint({ handler: () => openaiText(jsonCall) });
  const box = makeSandbox();
  const result = await runNex(runArgs(stub.url, box.dataDir), { cwd: box.workspace, env: box.env });
  await stub.close();
  assert.equal(result.code, 1);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
  assert.equal(existsSync(join(box.workspace, "hello.txt")), false);
  assert.match(result.stderr, /again after nex told it/);
  assert.match(result.stderr, /trained for tool calls/);
});

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { type Script, sse, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

async function run(options: { scripts?: Script[]; always?: Script }) {
  const stub = await startStubEndpoint({
    scripts: options.scripts ?? [],
    ...(options.always ? { handler: () => options.always as Script } : {}),
  });
  const box = makeSandbox();
  const result = await runNex(
    [
      "run",
      "--yes",
      "--model",
      "m",
      "--base-url",
      `${stub.url}/v1`,
      "--data-dir",
      box.dataDir,
      "do it",
    ],
    { cwd: box.workspace, env: box.env },
  );
  await stub.close();
  return { ...result, box, requests: stub.requestsTo("/v1/chat/completions").length };
}

test("a web page where the API should be (a proxy's login) is reported once, not retried", async () => {
  const result = await run({
    always: {
      type: "reply",
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<html><body>Proxy login</body></html>",
    },
  });
  assert.equal(result.requests, 1);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /web page instead of an API response/);
});

test("a stream of events that are not JSON is an error, not an empty success", async () => {
  const result = await run({
    always: { type: "stream", parts: ["data: not json\n\n", "data: {broken\n\n", sse("[DONE]")] },
  });
  assert.equal(result.requests, 1);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /not OpenAI-compatible JSON/);
  assert.equal(result.stdout, "");
});

test("a valid but empty response is an error, not an empty success", async () => {
  const result = await run({
    always: { type: "stream", parts: [sse({ id: "x", choices: [] }), sse("[DONE]")] },
  });
  assert.equal(result.code, 1);
  assert.match(result.stderr, /response was empty/);
});

test("a model that repeats the same read forever is stopped within a handful of requests", async () => {
  const result = await run({ always: openaiToolCall({ name: "list_dir", args: { path: "." } }) });
  assert.ok(result.requests <= 6, `${result.requests} requests`);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /same list_dir call returned the same result/);
});

test("a write outside the workspace is refused and nothing is written there", async () => {
  const result = await run({
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "../escaped.txt", content: "x" } }),
      openaiText("ok"),
    ],
  });
  assert.match(result.stderr, /outside the workspace/);
  assert.equal(result.code, 0);
  assert.equal(existsSync(join(result.box.workspace, "..", "escaped.txt")), false);
});

test("terminal control in the model's text never reaches the user's terminal through the progress lines", async () => {
  const result = await run({
    scripts: [
      openaiToolCall({
        name: "list_dir",
        args: { path: "." },
        text: "Let me look\u001b[2J\u001b[8m hidden",
      }),
      openaiText("done"),
    ],
  });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!result.stderr.includes("\u001b"), JSON.stringify(result.stderr));
  assert.match(result.stderr, /Let me look hidden/);
});

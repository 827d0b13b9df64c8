import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { anthropicText, anthropicToolUse, status } from "../support/stub-scripts.ts";

const KEY = "sk-ant-test-NEVER-PRINTED";

test("with --provider anthropic, nex writes a whole file and refuses a cut one, with the key sent as x-api-key only", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      anthropicToolUse({ name: "write_file", input: { path: "whole.txt", content: "complete\n" } }),
      anthropicToolUse({
        name: "write_file",
        input: { path: "cut.txt", content: "x".repeat(500) },
        cutAt: 120,
        finishReason: "max_tokens",
        includeDone: true,
      }),
      anthropicText("One file written; the other arrived cut off."),
    ],
  });
  const box = makeSandbox();
  const result = await runNex(
    [
      "run",
      "--provider",
      "anthropic",
      "--model",
      "claude-sonnet-4-5",
      "--yes",
      "--data-dir",
      box.dataDir,
      "write files",
    ],
    {
      cwd: box.workspace,
      env: { ...box.env, ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: KEY },
    },
  );
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "whole.txt"), "utf8"), "complete\n");
  assert.equal(existsSync(join(box.workspace, "cut.txt")), false);
  const posts = stub.requestsTo("/v1/messages");
  assert.equal(posts.length, 3);
  assert.equal(posts[0]?.headers["x-api-key"], KEY);
  assert.ok(!result.stderr.includes(KEY) && !result.stdout.includes(KEY));
  const third = posts[2]?.body as { messages: Array<{ role: string; content: unknown }> };
  assert.match(JSON.stringify(third.messages.at(-1)), /nothing was run or written/);
});

test("an Anthropic 401 is not retried and tells the user which key to check", async () => {
  const stub = await startStubEndpoint({
    handler: () =>
      status(401, {
        body: {
          type: "error",
          error: { type: "authentication_error", message: "invalid x-api-key" },
        },
      }),
  });
  const box = makeSandbox();
  const result = await runNex(
    [
      "run",
      "--provider",
      "anthropic",
      "--model",
      "claude-sonnet-4-5",
      "--base-url",
      stub.url,
      "--data-dir",
      box.dataDir,
      "hi",
    ],
    { cwd: box.workspace, env: { ...box.env, ANTHROPIC_API_KEY: KEY } },
  );
  await stub.close();
  assert.equal(stub.requestsTo("/v1/messages").length, 1);
  assert.equal(result.code, 3);
  assert.match(result.stderr, /ANTHROPIC_API_KEY/);
  assert.ok(!result.stderr.includes(KEY));
});

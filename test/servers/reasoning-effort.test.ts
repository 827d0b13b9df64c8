// The reasoning effort reaches the wire as each server takes it: `reasoning_effort` on the OpenAI
// wire, `thinking.budget_tokens` (below max_tokens) on Anthropic's, and nothing unless asked.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { anthropicText, openaiText } from "../support/stub-scripts.ts";

type Body = Record<string, unknown>;

async function firstBody(
  args: string[],
  options: { provider?: "openai" | "anthropic"; config?: object } = {},
): Promise<{ body: Body; code: number | null; stdout: string; stderr: string }> {
  const anthropic = options.provider === "anthropic";
  const stub = await startStubEndpoint({
    scripts: [anthropic ? anthropicText("ok") : openaiText("ok")],
  });
  const box = makeSandbox();
  if (options.config) {
    mkdirSync(join(box.env.XDG_CONFIG_HOME as string, "nex"), { recursive: true });
    writeFileSync(
      join(box.env.XDG_CONFIG_HOME as string, "nex", "config.json"),
      JSON.stringify(options.config),
    );
  }
  const env = anthropic
    ? { ...box.env, ANTHROPIC_BASE_URL: stub.url, ANTHROPIC_API_KEY: "k" }
    : { ...box.env, OPENAI_BASE_URL: stub.url, OPENAI_API_KEY: "k" };
  const result = await runNex(
    [
      "run",
      ...(anthropic ? ["--provider", "anthropic"] : []),
      "--data-dir",
      box.dataDir,
      "--json",
      ...args,
      "hi",
    ],
    { cwd: box.workspace, env },
  );
  await stub.close();
  const post = stub.requests.find(
    (r) => r.path.endsWith("/chat/completions") || r.path.endsWith("/messages"),
  );
  return {
    body: (post?.body ?? {}) as Body,
    code: result.code,
    stdout: result.stdout,
    stderr: result.stderr,
  };
}

test("--reasoning-effort high is sent as reasoning_effort to an OpenAI reasoning model", async () => {
  const { body, code, stderr } = await firstBody([
    "--model",
    "gpt-oss-20b",
    "--reasoning-effort",
    "high",
  ]);
  assert.equal(code, 0, stderr);
  assert.equal(body.reasoning_effort, "high");
});

test("without a setting nothing is sent: the server's default stands", async () => {
  const { body, code, stderr } = await firstBody(["--model", "o4-mini"]);
  assert.equal(code, 0, stderr);
  assert.equal("reasoning_effort" in body, false);
});

test("a model that does not take reasoning_effort is not sent it, and the user is told", async () => {
  const { body, code, stdout } = await firstBody([
    "--model",
    "gpt-4o-mini",
    "--reasoning-effort",
    "low",
  ]);
  assert.equal(code, 0);
  assert.equal("reasoning_effort" in body, false);
  assert.match(stdout, /not sent: gpt-4o-mini does not take a reasoning setting/);
});

test("the per-model setting in the config applies; the flag wins over it, and off sends nothing", async () => {
  const config = { models: { "qwen3-32b": { reasoningEffort: "low" } }, reasoningEffort: "medium" };
  const own = await firstBody(["--model", "qwen3-32b"], { config });
  assert.equal(own.body.reasoning_effort, "low");
  const fallback = await firstBody(["--model", "gpt-5-mini"], { config });
  assert.equal(fallback.body.reasoning_effort, "medium");
  const flag = await firstBody(["--model", "qwen3-32b", "--reasoning-effort", "high"], { config });
  assert.equal(flag.body.reasoning_effort, "high");
  const off = await firstBody(["--model", "qwen3-32b", "--reasoning-effort", "off"], { config });
  assert.equal("reasoning_effort" in off.body, false);
});

test("on Anthropic the effort becomes a thinking budget below max_tokens, with no temperature", async () => {
  const { body, code, stderr } = await firstBody(
    ["--model", "claude-sonnet-4-5", "--reasoning-effort", "medium"],
    { provider: "anthropic" },
  );
  assert.equal(code, 0, stderr);
  const thinking = body.thinking as { type: string; budget_tokens: number };
  assert.equal(thinking.type, "enabled");
  assert.ok(thinking.budget_tokens >= 1024, JSON.stringify(thinking));
  assert.ok(thinking.budget_tokens < (body.max_tokens as number), JSON.stringify(body));
  assert.equal("temperature" in body, false);
  assert.equal("top_k" in body, false);
});

test("a configured thinking budget is used, but never reaches max_tokens", async () => {
  const config = {
    models: {
      "claude-opus-4-1": { reasoningEffort: "high", thinkingBudget: 500_000, maxOutput: 4096 },
    },
  };
  const { body, code, stderr } = await firstBody(["--model", "claude-opus-4-1"], {
    provider: "anthropic",
    config,
  });
  assert.equal(code, 0, stderr);
  const thinking = body.thinking as { budget_tokens: number };
  assert.ok(thinking.budget_tokens < (body.max_tokens as number), JSON.stringify(body));
  assert.ok(thinking.budget_tokens >= 1024);
});

test("Claude models without extended thinking are sent none", async () => {
  const { body, code } = await firstBody(
    ["--model", "claude-3-5-haiku-latest", "--reasoning-effort", "high"],
    { provider: "anthropic" },
  );
  assert.equal(code, 0);
  assert.equal("thinking" in body, false);
});

test("an unknown effort is a usage error that names the choices", async () => {
  const { code, stderr } = await firstBody(["--model", "m", "--reasoning-effort", "max"]);
  assert.notEqual(code, 0);
  assert.match(stderr, /Use low, medium, high, or off/);
});

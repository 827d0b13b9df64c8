import assert from "node:assert/strict";
import { test } from "node:test";
import { sandboxMissing } from "../support/bwrap.ts";
import { makeSandbox, type NexResult, runNex, startNex } from "../support/cli.ts";
import { closedPort } from "../support/closed-port.ts";
import { healthyOpenAI, modelList, stream } from "../support/healthy-endpoint.ts";
import { type StubEndpoint, startStubEndpoint } from "../support/stub-endpoint.ts";
import {
  anthropicText,
  anthropicToolUse,
  hang,
  json,
  openaiText,
  openaiToolCall,
  type Script,
  sse,
  status,
} from "../support/stub-scripts.ts";

const KEY = "sk-doctor-test-NEVER-PRINTED";
const MODEL = "stub-model";

/** An Anthropic answer read mostly from the prompt cache. */
const anthropicCached = (read: number): Script => {
  const event = (data: Record<string, unknown>) => sse(data, data.type as string);
  return stream([
    event({
      type: "message_start",
      message: {
        id: "msg_c",
        type: "message",
        role: "assistant",
        content: [],
        usage: { input_tokens: 100, cache_read_input_tokens: read, output_tokens: 1 },
      },
    }),
    event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
    event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "ok" } }),
    event({ type: "content_block_stop", index: 0 }),
    event({
      type: "message_delta",
      delta: { stop_reason: "end_turn" },
      usage: { output_tokens: 1 },
    }),
    event({ type: "message_stop" }),
  ]);
};

async function doctor(
  stub: StubEndpoint | string,
  extra: string[] = [],
  env: Record<string, string> = { OPENAI_API_KEY: KEY },
): Promise<NexResult> {
  const box = makeSandbox();
  const url = typeof stub === "string" ? stub : stub.url;
  return runNex(["doctor", "--base-url", url, ...extra], {
    cwd: box.workspace,
    env: { ...box.env, ...env },
  });
}

function line(result: NexResult, title: string): string {
  return result.stdout.split("\n").find((text) => text.includes(`${title}:`)) ?? "";
}

function assertNoKey(result: NexResult): void {
  assert.ok(!result.stdout.includes(KEY), "the key appears on stdout");
  assert.ok(!result.stderr.includes(KEY), "the key appears on stderr");
}

test("nex doctor passes every check on a healthy OpenAI endpoint, exits 0 and says how few requests it sent", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: healthyOpenAI(),
  });
  const result = await doctor(stub, ["--model", MODEL]);
  await stub.close();
  assert.equal(result.code, 0, result.stdout + result.stderr);
  for (const title of [
    "commands sandboxed",
    "file search backend",
    "endpoint reachable",
    "key accepted",
    "model exists",
    "streaming works",
    "tool calls work",
    "context window and output limit",
    "truncation reported honestly",
    "reasoning apart from the answer",
    "tool calls parsed by the server",
    "prompt prefix reused",
  ]) {
    assert.match(line(result, title), /^PASS/, `${title}: ${result.stdout}`);
  }
  assert.match(line(result, "context window and output limit"), /32768 tokens .*max_model_len/);
  assert.match(line(result, "prompt prefix reused"), /reused 5200 cached prompt tokens/);
  assert.match(line(result, "Ollama context size"), /^SKIP/);
  // One model list, one discovery GET, three tiny model requests, two sharing a prefix: nothing more.
  assert.equal(stub.requests.length, 7);
  assert.match(result.stdout, /7 requests sent/);
  const posts = stub.requestsTo("/chat/completions").map((request) => request.body as never);
  assert.equal(posts.length, 5);
  const [plain, tool, cut] = posts as Array<Record<string, unknown>>;
  assert.equal(plain?.stream, true);
  assert.equal(plain?.max_tokens, 8_192, "the plain request asks for the most output nex will");
  assert.ok(Array.isArray(tool?.tools));
  assert.equal(cut?.max_tokens, 5);
  assertNoKey(result);
});

test("nex doctor fails the truncation check when an endpoint relabels cut output as stop, and says nex will rely on usage", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: [
      ...healthyOpenAI().slice(0, 2),
      openaiText("1 2 3", { finishReason: "stop", usage: { input: 30, output: 5 } }),
    ],
  });
  const result = await doctor(stub, ["--model", MODEL]);
  await stub.close();
  assert.equal(result.code, 1, result.stdout);
  const verdict = line(result, "truncation reported honestly");
  assert.match(verdict, /^FAIL/);
  assert.match(verdict, /max_tokens 5 .*ended with `stop`, as if it were complete/);
  assert.match(result.stdout, /nex will rely on usage vs max_tokens to detect truncation/);
  assert.match(line(result, "tool calls work"), /^PASS/);
});

test("nex doctor fails the key check on a 401, says which variable to set, never prints the key, and exits 3", async () => {
  const refuse = status(401, { body: { error: { message: `invalid key ${KEY}` } } });
  const stub = await startStubEndpoint({
    routes: { "GET /models": refuse },
    handler: () => refuse,
  });
  const withKey = await doctor(stub, ["--model", MODEL]);
  const withoutKey = await doctor(stub, ["--model", MODEL], {});
  const asJson = await doctor(stub, ["--model", MODEL, "--json"]);
  await stub.close();
  assert.equal(withKey.code, 3);
  assert.match(
    line(withKey, "key accepted"),
    /^FAIL .*refused the key from OPENAI_API_KEY \(HTTP 401\)/,
  );
  assert.match(line(withKey, "model exists"), /^SKIP/);
  assert.equal(withoutKey.code, 3);
  assert.match(withoutKey.stdout, /no key is set, and the endpoint requires one/);
  assert.match(withoutKey.stdout, /next: Set OPENAI_API_KEY/);
  for (const result of [withKey, withoutKey, asJson]) assertNoKey(result);
  // No model request was sent once the key was refused: three model lists, one per run.
  assert.equal(stub.requests.length, 3);
});

test("nex doctor fails the model check for a model the endpoint does not serve and lists the ones it does", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList(["qwen3-coder", "llama-3.1-8b"]) },
  });
  const result = await doctor(stub, ["--model", "gpt-7"]);
  await stub.close();
  assert.equal(result.code, 1);
  const verdict = line(result, "model exists");
  assert.match(
    verdict,
    /^FAIL {2}model exists: gpt-7 is not served; the endpoint serves: qwen3-coder, llama-3.1-8b/,
  );
  assert.match(line(result, "streaming works"), /^SKIP/);
  assert.equal(stub.requests.length, 1, "no model request for a model that does not exist");
});

test("nex doctor without a model uses the only one the endpoint serves, as nex run does", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList(["only-model"]) },
    scripts: healthyOpenAI(),
  });
  const result = await doctor(stub);
  await stub.close();
  assert.equal(result.code, 0, result.stdout);
  assert.match(line(result, "model exists"), /^PASS .*using only-model, the only model served/);
  assert.equal(
    (stub.requestsTo("/chat/completions")[0]?.body as { model?: string } | undefined)?.model,
    "only-model",
  );
});

test("nex doctor fails the reachable check on a refused connection and skips the rest, saying so", async () => {
  const port = await closedPort();
  const result = await doctor(`http://127.0.0.1:${port}/v1`, ["--model", MODEL]);
  assert.equal(result.code, 1);
  assert.match(
    line(result, "endpoint reachable"),
    /^FAIL .*connection was refused \(ECONNREFUSED\)/,
  );
  assert.match(result.stdout, /next: Check that the server is running/);
  for (const title of [
    "key accepted",
    "model exists",
    "streaming works",
    "truncation reported honestly",
  ]) {
    assert.match(line(result, title), /^SKIP .*is not reachable/, title);
  }
  assert.match(result.stdout, /1 request sent/);
});

test("nex doctor warns when the model answers in text instead of calling the tool", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: [
      openaiText("ok"),
      openaiText("I would call record_word with ready."),
      openaiText("1 2", { finishReason: "length", usage: { input: 30, output: 5 } }),
    ],
  });
  const result = await doctor(stub, ["--model", MODEL]);
  await stub.close();
  assert.equal(result.code, 0, "a warning is not a failure");
  assert.match(
    line(result, "tool calls work"),
    /^WARN .*answered in text instead of calling the tool/,
  );
  assert.match(result.stdout, /tool calling turned on/);
});

test("nex doctor fails the tool check when the model writes its call as text (the server does not parse tool calls)", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: [
      openaiText("ok"),
      openaiText(
        '<tool_call>\n{"name": "record_word", "arguments": {"word": "ready"}}\n</tool_call>',
      ),
      openaiText("1 2", { finishReason: "length", usage: { input: 30, output: 5 } }),
    ],
  });
  const result = await doctor(stub, ["--model", MODEL]);
  await stub.close();
  assert.equal(result.code, 1, result.stdout);
  assert.match(line(result, "tool calls work"), /^FAIL .*as plain text/);
  assert.match(result.stdout, /--tool-call-parser/);
});

test("nex doctor fails the tool check when the call's arguments are malformed", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: [
      openaiText("ok"),
      openaiToolCall({ name: "record_word", args: '{"word": "ready"' }),
      openaiText("1 2", { finishReason: "length", usage: { input: 30, output: 5 } }),
    ],
  });
  const result = await doctor(stub, ["--model", MODEL]);
  await stub.close();
  assert.equal(result.code, 1);
  assert.match(
    line(result, "tool calls work"),
    /^FAIL .*arrived malformed: the arguments could not be read/,
  );
});

test("nex doctor passes every check on a healthy Anthropic endpoint, with the key sent as x-api-key", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /v1/models": json({ data: [{ id: "claude-sonnet-4-5", type: "model" }] }) },
    scripts: [
      anthropicText("ok"),
      anthropicToolUse({ name: "record_word", input: { word: "ready" } }),
      anthropicText("1 2 3", { finishReason: "max_tokens", usage: { input: 30, output: 5 } }),
      anthropicText("ok"),
      anthropicCached(5200),
    ],
  });
  const result = await doctor(stub, ["--provider", "anthropic", "--model", "claude-sonnet-4-5"], {
    ANTHROPIC_API_KEY: KEY,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.equal(result.stdout.match(/^PASS/gm)?.length, 12, result.stdout);
  assert.match(
    line(result, "context window and output limit"),
    /200000 tokens from nex's built-in model table/,
  );
  assert.match(line(result, "truncation reported honestly"), /ended with `max_tokens`/);
  assert.ok(stub.requests.every((request) => request.headers["x-api-key"] === KEY));
  assert.equal(stub.requestsTo("/v1/messages").length, 5);
  const [prefixed] = stub.requestsTo("/v1/messages").slice(3);
  assert.match(
    prefixed?.rawBody ?? "",
    /"system":\[\{"type":"text".*"cache_control":\{"type":"ephemeral"\}/,
  );
  assertNoKey(result);
});

test("nex doctor --json prints one document with every check, the request count and the exit code", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: healthyOpenAI(),
  });
  const result = await doctor(stub, ["--model", MODEL, "--json"]);
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const report = JSON.parse(result.stdout) as {
    provider: string;
    model: string;
    requests: number;
    exitCode: number;
    interrupted: boolean;
    checks: Array<{
      id: string;
      title: string;
      status: string;
      found: string;
      next: string | null;
    }>;
  };
  assert.equal(report.provider, "openai");
  assert.equal(report.model, MODEL);
  assert.equal(report.requests, 7);
  assert.equal(report.exitCode, 0);
  assert.equal(report.interrupted, false);
  assert.deepEqual(
    report.checks.map((check) => [check.id, check.status]),
    [
      ["sandbox", "pass"],
      ["search", "pass"],
      ["reachable", "pass"],
      ["key", "pass"],
      ["model", "pass"],
      ["streaming", "pass"],
      ["tool_calls", "pass"],
      ["limits", "pass"],
      ["truncation", "pass"],
      ["reasoning_parser", "pass"],
      ["tool_parser", "pass"],
      ["prefix_cache", "pass"],
      ["ollama_context", "skip"],
    ],
  );
  assert.ok(report.checks.every((check) => typeof check.found === "string" && check.found !== ""));
});

test("on an endpoint without a model list, nex doctor judges the key by the model request it sends", async () => {
  const refuse = status(403, { body: { error: { message: "forbidden" } } });
  const refusing = await startStubEndpoint({ handler: () => refuse });
  const refused = await doctor(refusing, ["--model", MODEL]);
  await refusing.close();
  assert.equal(refused.code, 3, refused.stdout);
  assert.match(
    line(refused, "key accepted"),
    /^FAIL .*refused the key from OPENAI_API_KEY \(HTTP 403\)/,
  );
  assert.match(
    line(refused, "model exists"),
    /^WARN .*does not list its models \(GET \/models: HTTP 404\)/,
  );
  assert.equal(refusing.requestsTo("/chat/completions").length, 1);

  const serving = await startStubEndpoint({ scripts: healthyOpenAI() });
  const served = await doctor(serving, ["--model", MODEL]);
  await serving.close();
  assert.equal(served.code, 0, served.stdout);
  assert.match(line(served, "key accepted"), /^PASS .*accepted by a model request/);
  assert.match(
    line(served, "context window and output limit"),
    /^WARN .*assumes a conservative 32k/,
  );
  // The discovery probes, five model requests, and Ollama's /api/ps (discovery found no window).
  assert.ok(serving.requests.length <= 13, `${serving.requests.length} requests`);
  assertNoKey(served);
});

test("nex doctor fails the streaming check when the stream ends without its terminator", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: [openaiText("ok", { includeDone: false }), ...healthyOpenAI().slice(1)],
  });
  const result = await doctor(stub, ["--model", MODEL]);
  await stub.close();
  assert.equal(result.code, 1);
  assert.match(
    line(result, "streaming works"),
    /^FAIL .*ended without its terminator \(\[DONE\]\)/,
  );
  assert.match(result.stdout, /runs none/);
});

test("nex doctor honours the normal retry policy: a Retry-After longer than nex waits ends the check at once, after one request", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    handler: () => status(429, { headers: { "retry-after": "120" } }),
  });
  const result = await doctor(stub, ["--model", MODEL]);
  await stub.close();
  assert.equal(result.code, 1);
  assert.match(line(result, "streaming works"), /^FAIL .*asked to wait 120 s/);
  assert.match(result.stdout, /next: The endpoint is rate limiting; wait and run nex doctor again/);
  assert.match(line(result, "tool calls work"), /^SKIP/);
  assert.equal(stub.requestsTo("/chat/completions").length, 1, "no request after a refused wait");
});

test("Ctrl-C stops nex doctor mid-request: the rest is skipped as interrupted and it exits 130", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    handler: () => hang(),
  });
  const box = makeSandbox();
  const run = startNex(["doctor", "--base-url", stub.url, "--model", MODEL], {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: KEY },
  });
  while (stub.requestsTo("/chat/completions").length === 0 && run.child.exitCode === null)
    await new Promise((resolve) => setTimeout(resolve, 20));
  run.child.kill("SIGINT");
  const result = await run.done;
  await stub.close();
  assert.equal(result.code, 130, result.stdout + result.stderr);
  assert.match(line(result, "streaming works"), /^SKIP .*interrupted/);
  assert.match(result.stdout, /Interrupted\./);
  assert.equal(stub.requestsTo("/chat/completions").length, 1);
});

test("nex doctor says when commands cannot be sandboxed here, and how to fix it", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: healthyOpenAI(),
  });
  const box = makeSandbox();
  const result = await runNex(["doctor", "--base-url", `${stub.url}/v1`, "--model", MODEL], {
    cwd: box.workspace,
    env: { ...box.env, PATH: "/nonexistent" },
  });
  await stub.close();
  assert.match(line(result, "commands sandboxed"), /^FAIL .*bubblewrap \(bwrap\) is not installed/);
  assert.match(
    result.stdout,
    /next: install it \(Debian\/Ubuntu: `sudo apt-get install bubblewrap`/,
  );
  assert.equal(result.code, 1);
});

test("nex doctor reports the sandbox's network: none by default, or the allowed hosts through nex's proxy, started for real", {
  skip: sandboxMissing() ?? false,
}, async () => {
  const port = await closedPort();
  const box = makeSandbox();
  const args = ["doctor", "--base-url", `http://127.0.0.1:${port}/v1`, "--model", MODEL];
  const none = await runNex(args, { cwd: box.workspace, env: box.env });
  assert.match(line(none, "commands sandboxed"), /^PASS .*, no network,/);
  const hosts = await runNex([...args, "--allow-host", "npm", "--allow-host", "*.example.org"], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.match(
    line(hosts, "commands sandboxed"),
    /^PASS .*, network only to npm, \*\.example\.org, through nex's proxy,/,
  );
});

test("nex doctor names what the server said when it ended a stream with an error event (llama-server), and how long each probe took", async () => {
  const errorEnded = stream([
    sse({ choices: [{ index: 0, delta: { role: "assistant", content: "ok" } }] }),
    sse({ error: { code: 500, message: "slot 0: KV cache is full", type: "server_error" } }),
  ]);
  const stub = await startStubEndpoint({
    routes: { "GET /models": modelList([MODEL]) },
    scripts: [errorEnded, ...healthyOpenAI().slice(1)],
  });
  const result = await doctor(stub, ["--model", MODEL]);
  await stub.close();
  assert.equal(result.code, 1);
  assert.match(
    line(result, "streaming works"),
    /^FAIL .*ended without its terminator \(\[DONE\]\): .*slot 0: KV cache is full.* \(took \d+\.\d s\)/,
  );
  assert.match(result.stdout, /its log says more/);
  for (const title of ["endpoint reachable", "tool calls work", "truncation"])
    assert.match(
      result.stdout.split("\n").find((text) => text.includes(title)) ?? "",
      /\(took \d+\.\d s\)/,
      title,
    );
});

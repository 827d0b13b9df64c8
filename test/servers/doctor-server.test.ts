// `nex doctor` on how the server is set up: reasoning leaking into the answer, tool calls leaking
// into it, a prompt prefix not reused, and Ollama serving less context than nex would use.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type NexResult, runNex } from "../support/cli.ts";
import { cachedOpenAI } from "../support/healthy-endpoint.ts";
import { type StubEndpoint, startStubEndpoint } from "../support/stub-endpoint.ts";
import { json, openaiText, openaiToolCall } from "../support/stub-scripts.ts";

const MODEL = "stub-model";

const cut = () => openaiText("1 2 3", { finishReason: "length", usage: { input: 30, output: 5 } });
const call = () => openaiToolCall({ name: "record_word", args: { word: "ready" } });
const list = (window?: number) =>
  json({
    object: "list",
    data: [{ id: MODEL, object: "model", ...(window ? { max_model_len: window } : {}) }],
  });

async function doctor(stub: StubEndpoint, config?: object): Promise<NexResult> {
  const box = makeSandbox();
  if (config) {
    mkdirSync(join(box.env.XDG_CONFIG_HOME as string, "nex"), { recursive: true });
    writeFileSync(
      join(box.env.XDG_CONFIG_HOME as string, "nex", "config.json"),
      JSON.stringify(config),
    );
  }
  return runNex(["doctor", "--base-url", stub.url, "--model", MODEL], {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: "k" },
  });
}

function verdict(result: NexResult, title: string): string {
  const lines = result.stdout.split("\n");
  const at = lines.findIndex((text) => text.includes(`${title}:`));
  assert.ok(at >= 0, `no "${title}" line in:\n${result.stdout}`);
  // The verdict and its "next:" line, as one string.
  return lines
    .slice(at, at + 3)
    .join(" ")
    .replace(/\s+/g, " ");
}

test("reasoning that arrives as <think> in the answer is a warning naming the server's reasoning-parser flag", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": list(32_768) },
    scripts: [
      openaiText("<think>The user wants ok.</think>ok"),
      call(),
      cut(),
      cachedOpenAI(0),
      cachedOpenAI(5200),
    ],
  });
  const result = await doctor(stub);
  await stub.close();
  const found = verdict(result, "reasoning apart from the answer");
  assert.match(found, /^WARN .*inside the answer as <think>/);
  assert.match(found, /--reasoning-parser/);
});

test("a tool call written as <tool_call> text fails the parser check with the vLLM flags that fix it", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": list(32_768) },
    scripts: [
      openaiText("ok"),
      openaiText(
        '<tool_call>\n{"name": "record_word", "arguments": {"word": "ready"}}\n</tool_call>',
      ),
      cut(),
      cachedOpenAI(0),
      cachedOpenAI(5200),
    ],
  });
  const result = await doctor(stub);
  await stub.close();
  const found = verdict(result, "tool calls parsed by the server");
  assert.match(found, /^FAIL .*tool-call markup \(<tool_call>\) leaked into the answer's text/);
  assert.match(found, /--enable-auto-tool-choice --tool-call-parser hermes/);
  assert.equal(result.code, 1);
});

test("two requests sharing a long prefix with no cached tokens warn that the prefix is not reused, and say how to turn it on", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": list(32_768) },
    scripts: [openaiText("ok"), call(), cut(), cachedOpenAI(0), cachedOpenAI(0)],
  });
  const result = await doctor(stub);
  await stub.close();
  const found = verdict(result, "prompt prefix reused");
  assert.match(found, /^WARN .*read no cached tokens for a ~\d+-token prefix/);
  assert.match(found, /--enable-prefix-caching/);
  const [first, second] = stub.requestsTo("/chat/completions").slice(3);
  const system = (r: typeof first) =>
    (r?.body as { messages?: { content: string }[] } | undefined)?.messages?.[0]?.content ?? "";
  assert.ok(system(first).length > 10_000, "the shared prefix is long");
  assert.equal(system(first), system(second));
});

const ollamaRoutes = (loaded: number | null) => ({
  "GET /models": list(),
  "GET /api/ps": json({
    models: loaded === null ? [] : [{ name: MODEL, model: MODEL, context_length: loaded }],
  }),
  "POST /api/show": json({ parameters: "", model_info: { "qwen3.context_length": 40_960 } }),
});

test("Ollama serving less context than the window nex would use is a warning with OLLAMA_CONTEXT_LENGTH", async () => {
  const stub = await startStubEndpoint({
    routes: ollamaRoutes(4096),
    scripts: [openaiText("ok"), call(), cut(), cachedOpenAI(0), cachedOpenAI(5200)],
  });
  const result = await doctor(stub, { models: { [MODEL]: { contextWindow: 32_768 } } });
  await stub.close();
  const found = verdict(result, "Ollama context size");
  assert.match(
    found,
    /^WARN .*Ollama serves this model with 4096 tokens of context \(as loaded\), less than the 32768/,
  );
  assert.match(found, /OLLAMA_CONTEXT_LENGTH=32768/);
});

test("an Ollama model not loaded, with no num_ctx, warns that Ollama's default may be smaller than the model's window", async () => {
  const stub = await startStubEndpoint({
    routes: ollamaRoutes(null),
    scripts: [openaiText("ok"), call(), cut(), cachedOpenAI(0), cachedOpenAI(5200)],
  });
  const result = await doctor(stub);
  await stub.close();
  const found = verdict(result, "Ollama context size");
  assert.match(found, /^WARN .*not loaded and sets no num_ctx/);
  assert.match(found, /num_ctx 40960/);
});

test("LM Studio's default tool format left unparsed in the answer fails the parser check, saying what LM Studio needs", async () => {
  const stub = await startStubEndpoint({
    routes: { "GET /models": list(32_768) },
    scripts: [
      openaiText("ok"),
      openaiText(
        '[TOOL_REQUEST]{"name": "record_word", "arguments": {"word": "ready"}}[END_TOOL_REQUEST]',
      ),
      cut(),
      cachedOpenAI(0),
      cachedOpenAI(5200),
    ],
  });
  const result = await doctor(stub);
  await stub.close();
  const found = verdict(result, "tool calls parsed by the server");
  assert.match(found, /^FAIL .*\[TOOL_REQUEST\]/);
  assert.match(found, /native tool support/);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { discoverContextWindow } from "../../src/providers/index.ts";
import { hang, json, type Script, startStubEndpoint } from "../support/stub-endpoint.ts";

async function discover(
  routes: Record<string, Script>,
  model: string,
  extra: { timeoutMs?: number } = {},
) {
  const stub = await startStubEndpoint({ routes });
  try {
    const found = await discoverContextWindow({
      baseUrl: `${stub.url}/v1`,
      apiKey: "sk-disc",
      model,
      kind: "openai",
      ...extra,
    });
    return {
      found,
      requests: stub.requests.map((r) => `${r.method} ${r.path}`),
      auth: stub.requests[0]?.headers.authorization,
    };
  } finally {
    await stub.close();
  }
}

test("vLLM: max_model_len from GET /v1/models, in one request with the key", async () => {
  const { found, requests, auth } = await discover(
    {
      "GET /v1/models": json({
        object: "list",
        data: [{ id: "qwen3-coder", object: "model", owned_by: "vllm", max_model_len: 32768 }],
      }),
    },
    "qwen3-coder",
  );
  assert.deepEqual(found, { contextWindow: 32768, source: "GET /v1/models max_model_len (vLLM)" });
  assert.deepEqual(requests, ["GET /v1/models"]);
  assert.equal(auth, "Bearer sk-disc");
});

test("llama.cpp: the per-slot n_ctx from GET /props, not the training length", async () => {
  const { found, requests } = await discover(
    {
      "GET /v1/models": json({
        data: [{ id: "qwen.gguf", owned_by: "llamacpp", meta: { n_ctx_train: 131072 } }],
      }),
      "GET /props": json({ default_generation_settings: { n_ctx: 8192 }, total_slots: 1 }),
    },
    "anything",
  );
  assert.deepEqual(found, { contextWindow: 8192, source: "GET /props n_ctx (llama.cpp)" });
  assert.deepEqual(requests, ["GET /v1/models", "GET /props"]);
});

const ollamaModels = json({
  object: "list",
  data: [{ id: "qwen3:8b", object: "model", owned_by: "library" }],
});
const ollamaShow = (parameters: string) =>
  json({
    parameters,
    model_info: { "general.architecture": "qwen3", "qwen3.context_length": 40960 },
  });

test("Ollama: the context_length of the loaded model from /api/ps is what is effective", async () => {
  const { found } = await discover(
    {
      "GET /v1/models": ollamaModels,
      "GET /api/ps": json({
        models: [{ name: "qwen3:8b", model: "qwen3:8b", context_length: 4096 }],
      }),
      "POST /api/show": ollamaShow(""),
    },
    "qwen3:8b",
  );
  assert.deepEqual(found, {
    contextWindow: 4096,
    source: "GET /api/ps context_length (Ollama, as loaded)",
  });
});

test("Ollama: num_ctx from the model's parameters when it is not loaded", async () => {
  const { found } = await discover(
    {
      "GET /v1/models": ollamaModels,
      "GET /api/ps": json({ models: [] }),
      "POST /api/show": ollamaShow("stop <|im_end|>\nnum_ctx 16384"),
    },
    "qwen3:8b",
  );
  assert.deepEqual(found, { contextWindow: 16384, source: "POST /api/show num_ctx (Ollama)" });
});

test("Ollama: the architecture's context_length as a last resort, with the caveat in the source", async () => {
  const { found } = await discover(
    {
      "GET /v1/models": ollamaModels,
      "GET /api/ps": json({ models: [] }),
      "POST /api/show": ollamaShow(""),
    },
    "qwen3:8b",
  );
  assert.equal(found?.contextWindow, 40960);
  assert.match(found?.source ?? "", /qwen3\.context_length .*may serve a smaller num_ctx/);
});

test("LM Studio: loaded_context_length from GET /api/v0/models", async () => {
  const { found } = await discover(
    {
      "GET /v1/models": json({
        data: [{ id: "devstral-small", object: "model", owned_by: "organization_owner" }],
      }),
      "GET /api/v0/models": json({
        data: [
          { id: "other", state: "not-loaded", max_context_length: 8192 },
          {
            id: "devstral-small",
            state: "loaded",
            max_context_length: 131072,
            loaded_context_length: 4096,
          },
        ],
      }),
    },
    "devstral-small",
  );
  assert.deepEqual(found, {
    contextWindow: 4096,
    source: "GET /api/v0/models loaded_context_length (LM Studio)",
  });
});

test("a server that states nothing yields null after a few requests", async () => {
  const { found, requests } = await discover({}, "mystery");
  assert.equal(found, null);
  assert.ok(requests.length <= 5, `sent ${requests.join(", ")}`);
});

// Without the probe timeout it would never end: the test's own timeout catches that.
test("a server that never answers yields null within the probe timeout", {
  timeout: 120_000,
}, async () => {
  const { found } = await discover({ "GET /v1/models": hang() }, "slow", { timeoutMs: 100 });
  assert.equal(found, null);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { classifyHttpError, type FailureContext } from "../../src/providers/index.ts";

const context: FailureContext = {
  host: "gpu-box:8000",
  path: "/v1/chat/completions",
  keyName: "NEX_API_KEY",
  keySent: true,
};

const contextErrors: {
  server: string;
  status: number;
  body: unknown;
  limit: number | undefined;
}[] = [
  {
    server: "OpenAI",
    status: 400,
    body: {
      error: {
        message:
          "This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        param: "messages",
        code: "context_length_exceeded",
      },
    },
    limit: 128000,
  },
  {
    server: "vLLM",
    status: 400,
    body: {
      object: "error",
      message:
        "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (29000 in the messages, 4000 in the completion). Please reduce the length of the messages or completion.",
      type: "BadRequestError",
      param: null,
      code: 400,
    },
    limit: 32768,
  },
  {
    server: "llama.cpp (with sizes in the message)",
    status: 400,
    body: {
      error: {
        code: 400,
        message:
          "request (13392 tokens) exceeds the available context size (8192 tokens), try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: 13392,
        n_ctx: 8192,
      },
    },
    limit: 8192,
  },
  {
    server: "llama.cpp (older wording, n_ctx field only)",
    status: 400,
    body: {
      error: {
        code: 400,
        message: "the request exceeds the available context size, try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: 5000,
        n_ctx: 4096,
      },
    },
    limit: 4096,
  },
  {
    server: "Anthropic (prompt too long)",
    status: 400,
    body: {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 200001 tokens > 200000 maximum",
      },
    },
    limit: 200000,
  },
  {
    server: "Anthropic (input plus max_tokens)",
    status: 400,
    body: {
      type: "error",
      error: {
        type: "invalid_request_error",
        message:
          "input length and `max_tokens` exceed context limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again",
      },
    },
    limit: 200000,
  },
  {
    server: "OpenRouter",
    status: 400,
    body: {
      error: {
        message:
          "This endpoint's maximum context length is 131072 tokens. However, you requested about 140000 tokens.",
        code: 400,
      },
    },
    limit: 131072,
  },
  {
    server: "Ollama",
    status: 400,
    body: { error: "the input length exceeds the context length" },
    limit: undefined,
  },
  {
    server: "LM Studio (loaded context)",
    status: 400,
    body: {
      error:
        "Trying to keep the first 5000 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input",
    },
    limit: 4096,
  },
  {
    server: "LM Studio (tokens to keep)",
    status: 400,
    body: {
      error:
        "The number of tokens to keep from the initial prompt is greater than the context length.",
    },
    limit: undefined,
  },
  {
    server: "a proxy's 413",
    status: 413,
    body: "<html>413 Request Entity Too Large</html>",
    limit: undefined,
  },
];

for (const { server, status, body, limit } of contextErrors) {
  test(`a ${server} context-length error is typed context_length${limit ? ` with the limit ${limit}` : ""}`, () => {
    const text = typeof body === "string" ? body : JSON.stringify(body);
    const error = classifyHttpError(status, text, context);
    assert.equal(error.code, "context_length");
    assert.equal(error.retryable, false);
    assert.equal(error.status, status);
    assert.equal(error.contextLimit, limit);
    assert.match(error.message, /gpu-box:8000/);
    assert.match(error.message, new RegExp(`HTTP ${status}`));
    assert.match(error.message, /Compact the conversation or start a new one/);
  });
}

test("an output-limit 400 that names no context is a plain bad_request", () => {
  const body = JSON.stringify({
    error: {
      message:
        "max_tokens is too large: 100000. This model supports at most 16384 completion tokens, whereas you provided 100000.",
    },
  });
  const error = classifyHttpError(400, body, context);
  assert.equal(error.code, "bad_request");
  assert.match(error.message, /max_tokens is too large/);
  assert.match(error.message, /did not send it again/);
});

test("a 403 without a key says which variable to set", () => {
  const error = classifyHttpError(403, "{}", { ...context, keySent: false });
  assert.equal(error.code, "auth");
  assert.match(error.message, /no API key was sent: set NEX_API_KEY/);
});

test("a 404 suggests checking the base URL and the model name", () => {
  const error = classifyHttpError(
    404,
    JSON.stringify({ error: 'model "qwen9" not found, try pulling it first' }),
    context,
  );
  assert.equal(error.code, "not_found");
  assert.match(error.message, /model "qwen9" not found/);
  assert.match(error.message, /base URL.*model name/);
});

test("a long server message is trimmed to a readable length", () => {
  const error = classifyHttpError(500, `<html>${"x".repeat(5000)}</html>`, context);
  assert.ok(error.message.length < 700, `message is ${error.message.length} characters`);
  assert.equal(error.retryable, true);
});

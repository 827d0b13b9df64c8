import assert from "node:assert/strict";
import { test } from "node:test";
import { startStubEndpoint } from "../../src/demo/scripted-endpoint.ts";
import { sse } from "../../src/demo/scripts.ts";
import type { ModelRequest, ProviderEvent } from "../../src/protocol/index.ts";
import { createOpenAIClient } from "../../src/providers/index.ts";

const request: ModelRequest = {
  model: "m",
  system: "s",
  messages: [{ type: "user", text: "hi" }],
  tools: [],
  maxTokens: 256,
  requestId: 1,
};

async function collect(url: string): Promise<ProviderEvent[]> {
  const client = createOpenAIClient({
    baseUrl: `${url}/v1`,
    retry: { sleep: async () => {} },
    // Only the idle timeout is ever under test: the first bytes may be slow on a loaded machine.
    timeouts: { firstByteMs: 30_000, idleMs: 300 },
  });
  const events: ProviderEvent[] = [];
  for await (const event of client(request, new AbortController().signal)) events.push(event);
  return events;
}

function finalError(events: ProviderEvent[]) {
  const last = events.at(-1);
  assert.equal(last?.type, "error");
  return last.type === "error" ? last.error : assert.fail("no error");
}

test("a 4xx whose body is cut on its way is still a 4xx: sent once, never retried as a network error", async () => {
  const stub = await startStubEndpoint({
    handler: () => ({
      type: "stream",
      status: 413,
      headers: { "content-type": "application/json" },
      parts: ['{"error":{"message":"request too large'],
      end: "destroy",
    }),
  });
  const error = finalError(await collect(stub.url));
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 1);
  assert.equal(error.status, 413);
});

test("a 401 whose body stalls is not retried", async () => {
  const stub = await startStubEndpoint({
    handler: () => ({
      type: "stream",
      status: 401,
      headers: { "content-type": "application/json" },
      parts: ['{"error":'],
      end: "hang",
    }),
  });
  const error = finalError(await collect(stub.url));
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 1);
  assert.equal(error.code, "auth");
});

test("an error object in a 200 stream is classified by its code and type words, not as a retryable 500", async () => {
  const stub = await startStubEndpoint({
    handler: () => ({
      type: "stream",
      parts: [
        sse({
          error: {
            message:
              "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
            type: "invalid_request_error",
            code: "context_length_exceeded",
          },
        }),
      ],
    }),
  });
  const error = finalError(await collect(stub.url));
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 1);
  assert.equal(error.code, "context_length");
  assert.equal(error.contextLimit, 8192);
});

test("an invalid_request_error in a 200 body is not retried", async () => {
  const stub = await startStubEndpoint({
    handler: () => ({
      type: "reply",
      status: 200,
      body: { error: { message: "bad tool schema", type: "invalid_request_error", code: null } },
    }),
  });
  const error = finalError(await collect(stub.url));
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 1);
  assert.equal(error.retryable, false);
});

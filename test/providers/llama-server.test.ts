// What a real llama-server answers in the failures seen from it (bodies as its source writes them),
// and what nex makes of them: something the user or the model can act on, and never a hammering loop.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startStubEndpoint } from "../../src/demo/scripted-endpoint.ts";
import { createOpenAIClient } from "../../src/providers/index.ts";
import { collect, finalError, sampleRequest } from "./helpers.ts";

function client(url: string) {
  return createOpenAIClient({
    baseUrl: `${url}/v1`,
    retry: { sleep: async () => {} },
    timeouts: { firstByteMs: 2_000, idleMs: 1_000 },
  });
}

test("llama-server without --jinja (HTTP 500 'tools param requires --jinja flag') is a configuration error: sent once, and the message says to restart it with --jinja", async () => {
  const stub = await startStubEndpoint({
    handler: () => ({
      type: "reply",
      status: 500,
      body: {
        error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" },
      },
    }),
  });
  const error = finalError(await collect(client(stub.url), sampleRequest()));
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 1);
  assert.equal(error.code, "config");
  assert.equal(error.retryable, false);
  assert.match(error.message, /tools param requires --jinja flag/);
  assert.match(error.message, /restart llama-server with --jinja/);
});

test("a 500 that names no setting is still a passing server failure, retried", async () => {
  const stub = await startStubEndpoint({
    handler: () => ({
      type: "reply",
      status: 500,
      body: { error: { code: 500, message: "slot unavailable", type: "server_error" } },
    }),
  });
  const error = finalError(await collect(client(stub.url), sampleRequest()));
  await stub.close();
  assert.equal(error.code, "server_error");
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 6);
});

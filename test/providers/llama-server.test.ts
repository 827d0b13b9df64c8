// What a real llama-server answers in the failures seen from it (bodies as its source writes them),
// and what nex makes of them: something the user or the model can act on, and never a hammering loop.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  openaiText,
  type Script,
  sse,
  startStubEndpoint,
} from "../../src/demo/scripted-endpoint.ts";
import { createOpenAIClient } from "../../src/providers/index.ts";
import { collect, doneTurn, finalError, sampleRequest } from "./helpers.ts";

function client(url: string) {
  return createOpenAIClient({
    baseUrl: `${url}/v1`,
    retry: { sleep: async () => {} },
    // No timeout is under test with this client: long enough for a loaded machine's answer.
    timeouts: { firstByteMs: 30_000, idleMs: 30_000 },
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

// llama-server's stream when the model's output is not a call in its template's format: an error
// event and the end of the body, no [DONE].
const chunk = (delta: unknown) =>
  sse({
    id: "c",
    object: "chat.completion.chunk",
    created: 0,
    model: "m",
    choices: [{ index: 0, delta, finish_reason: null }],
  });
const unparsed = (text: string | null): Script => ({
  type: "stream",
  status: 200,
  parts: [
    chunk({ role: "assistant", content: "" }),
    ...(text === null ? [] : [chunk({ content: text })]),
    sse({
      error: {
        code: 500,
        message: "The model produced output that does not match the expected Hermes 2 Pro format",
        type: "server_error",
      },
    }),
  ],
  end: "close",
});

test("llama-server's 'output does not match the expected format' event is retried once, clearly, then names what to change; never five times", async () => {
  const stub = await startStubEndpoint({ handler: () => unparsed(null) });
  const events = await collect(client(stub.url), sampleRequest());
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
  const failures = events.filter((e) => e.type === "attempt_failed");
  assert.deepEqual(
    failures.map((e) => e.type === "attempt_failed" && e.maxRetries),
    [1, 1],
  );
  const error = finalError(events);
  assert.equal(error.code, "invalid_response");
  assert.match(error.message, /could not read the model's reply as a tool call/);
  assert.match(error.message, /does not match the expected Hermes 2 Pro format/);
  assert.match(error.message, /--temp|--chat-template-file/);
  assert.doesNotMatch(error.message, /try again later/);
});

test("after text, the unparsable reply is discarded and asked again: the turn is the new reply alone", async () => {
  const stub = await startStubEndpoint({
    scripts: [unparsed("I will read the file."), openaiText("Here is the answer.")],
  });
  const turn = doneTurn(await collect(client(stub.url), sampleRequest()));
  await stub.close();
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
  assert.equal(turn.text, "Here is the answer.");
});

test("a server that says nothing while it reads a long prompt times out with the setting that allows it longer", async () => {
  const stub = await startStubEndpoint({ handler: () => ({ type: "hang" }) });
  const slow = createOpenAIClient({
    baseUrl: `${stub.url}/v1`,
    retry: { sleep: async () => {} },
    timeouts: { firstByteMs: 200, idleMs: 200 },
  });
  const error = finalError(await collect(slow, sampleRequest()));
  await stub.close();
  assert.equal(error.code, "timeout");
  assert.match(error.message, /NEX_FIRST_BYTE_TIMEOUT/);
});

test("a stream that goes silent after its first words names the setting that allows a slow server longer", async () => {
  const stub = await startStubEndpoint({
    handler: () => ({
      type: "stream",
      status: 200,
      parts: [chunk({ role: "assistant", content: "Reading" })],
      end: "hang",
    }),
  });
  const slow = createOpenAIClient({
    baseUrl: `${stub.url}/v1`,
    retry: { sleep: async () => {} },
    // Only the idle timeout is under test: the first bytes may be slow on a loaded machine.
    timeouts: { firstByteMs: 30_000, idleMs: 200 },
  });
  const turn = doneTurn(await collect(slow, sampleRequest()));
  await stub.close();
  assert.equal(turn.terminated, false);
  assert.match(turn.dropDetail ?? "", /stalled.*NEX_IDLE_TIMEOUT/);
});

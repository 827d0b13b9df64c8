import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type AnthropicClientOptions, createAnthropicClient } from "../../src/providers/index.ts";
import {
  anthropicStreamError,
  anthropicText,
  anthropicToolUse,
  anthropicToolUses,
  type StubEndpoint,
  sse,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";
import { collect, doneTurn, finalError, recordedSleeps, sampleRequest } from "./helpers.ts";

let stub: StubEndpoint;
before(async () => {
  stub = await startStubEndpoint();
});
after(() => stub.close());

const client = (extra: Partial<AnthropicClientOptions> = {}) =>
  createAnthropicClient({
    baseUrl: stub.url,
    apiKey: "sk-ant-test",
    retry: recordedSleeps().retry,
    ...extra,
  });

test("the request body is the whole translated conversation, with tool results in user turns and the Anthropic headers", async () => {
  stub.enqueue(anthropicText("ok"));
  const before = stub.requests.length;
  const request = sampleRequest({
    maxTokens: 1024,
    messages: [
      { type: "user", text: "write a.txt" },
      {
        type: "assistant",
        text: "Writing.",
        toolCalls: [
          { id: "toolu_a", name: "write_file", argumentsText: '{"path":"a.txt","content":"hi"}' },
          { id: "toolu_b", name: "write_file", argumentsText: '{"path":"b.txt","content":"cut' },
        ],
      },
      {
        type: "tool_result",
        toolCallId: "toolu_a",
        toolName: "write_file",
        content: "wrote 2 bytes",
        isError: false,
      },
      {
        type: "tool_result",
        toolCallId: "toolu_b",
        toolName: "write_file",
        content: "refused",
        isError: true,
      },
      { type: "user", text: "and now?" },
    ],
  });
  assert.equal(doneTurn(await collect(client(), request)).text, "ok");
  const sent = stub.requests[before];
  assert.ok(sent);
  assert.equal(sent.path, "/v1/messages");
  assert.equal(sent.headers["x-api-key"], "sk-ant-test");
  assert.equal(sent.headers["anthropic-version"], "2023-06-01");
  assert.equal(sent.headers.authorization, undefined);
  assert.deepEqual(sent.body, {
    model: "stub-model",
    max_tokens: 1024,
    // Cache breakpoints: the end of the stable prefix, the conversation's end and the user turn before it.
    system: [{ type: "text", text: "You are nex.", cache_control: { type: "ephemeral" } }],
    messages: [
      {
        role: "user",
        content: [{ type: "text", text: "write a.txt", cache_control: { type: "ephemeral" } }],
      },
      {
        role: "assistant",
        content: [
          { type: "text", text: "Writing." },
          {
            type: "tool_use",
            id: "toolu_a",
            name: "write_file",
            input: { path: "a.txt", content: "hi" },
          },
          { type: "tool_use", id: "toolu_b", name: "write_file", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_a", content: "wrote 2 bytes" },
          { type: "tool_result", tool_use_id: "toolu_b", content: "refused", is_error: true },
          { type: "text", text: "and now?", cache_control: { type: "ephemeral" } },
        ],
      },
    ],
    tools: [
      {
        name: "write_file",
        description: "Write a file",
        input_schema: {
          type: "object",
          properties: { path: { type: "string" }, content: { type: "string" } },
          required: ["path", "content"],
        },
      },
    ],
    stream: true,
  });
});

test("a streamed tool_use is whole after content_block_stop, tool_use stop and message_stop", async () => {
  const input = { path: "a.txt", content: "line\n".repeat(40) };
  stub.enqueue(anthropicToolUse({ name: "write_file", input, chunkSize: 7, text: "Writing." }));
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.text, "Writing.");
  assert.equal(turn.stopReason, "tool_calls");
  assert.equal(turn.rawStopReason, "tool_use");
  assert.deepEqual(turn.usage, { inputTokens: 12, outputTokens: 7 });
  assert.deepEqual(turn.toolCalls, [
    {
      id: "toolu_2",
      name: "write_file",
      argumentsText: JSON.stringify(input),
      verdict: { type: "whole", args: input, recovery: "strict" },
    },
  ]);
});

test("a tool_use input that does not parse is poisoned, never null or {}", async () => {
  stub.enqueue(anthropicToolUse({ name: "write_file", input: '{"path":"a.txt","content":"abc' }));
  const verdict = doneTurn(await collect(client())).toolCalls[0]?.verdict;
  assert.equal(verdict?.type, "poisoned");
  assert.equal(verdict?.type === "poisoned" && verdict.cause, "unparseable");
});

test("stop_reason max_tokens poisons the call and names the key being written", async () => {
  stub.enqueue(
    anthropicToolUse({
      name: "write_file",
      input: '{"path":"a.txt","content":"abc',
      finishReason: "max_tokens",
      usage: { input: 10, output: 4096 },
    }),
  );
  const verdict = doneTurn(await collect(client(), sampleRequest({ maxTokens: 4096 }))).toolCalls[0]
    ?.verdict;
  assert.deepEqual(verdict, {
    type: "poisoned",
    cause: "output_limit",
    reason: "output was cut off at the 4096-token output limit while writing `content`",
    bytesReceived: 30,
  });
});

test("a stream missing message_stop poisons a complete-looking call", async () => {
  stub.enqueue(
    anthropicToolUse({
      name: "write_file",
      input: { path: "a", content: "b" },
      includeDone: false,
    }),
  );
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.terminated, false);
  const verdict = turn.toolCalls[0]?.verdict;
  assert.equal(verdict?.type === "poisoned" && verdict.cause, "stream_dropped");
  assert.match(verdict?.type === "poisoned" ? verdict.reason : "", /terminator \(message_stop\)/);
});

test("a socket destroyed mid-input ends done with the call poisoned and no silent retry", async () => {
  stub.enqueue(
    anthropicToolUse({
      name: "write_file",
      input: { path: "a", content: "x".repeat(300) },
      cutAt: 100,
      end: "destroy",
    }),
  );
  const events = await collect(client());
  const verdict = doneTurn(events).toolCalls[0]?.verdict;
  assert.equal(verdict?.type === "poisoned" && verdict.cause, "stream_dropped");
  assert.equal(verdict?.type === "poisoned" && verdict.bytesReceived, 100);
  assert.equal(events.filter((e) => e.type === "attempt_started").length, 1);
});

test("two tool_use blocks are both assembled by block index", async () => {
  stub.enqueue(
    anthropicToolUses([
      { name: "read_file", input: { path: "a" } },
      { name: "read_file", input: { path: "b" } },
    ]),
  );
  const turn = doneTurn(await collect(client()));
  assert.deepEqual(
    turn.toolCalls.map((call) => call.verdict.type === "whole" && call.verdict.args.path),
    ["a", "b"],
  );
});

test("an in-stream overloaded error before any output is retried like a 529", async () => {
  stub.enqueue(
    { type: "stream", parts: [anthropicStreamError("overloaded_error", "Overloaded")] },
    anthropicText("after retry"),
  );
  const events = await collect(client());
  assert.equal(doneTurn(events).text, "after retry");
  const failed = events.find((e) => e.type === "attempt_failed");
  assert.equal(failed?.type === "attempt_failed" && failed.error.status, 529);
});

test("an Anthropic context-length 400 is typed with the stated limit", async () => {
  stub.enqueue({
    type: "reply",
    status: 400,
    body: {
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "prompt is too long: 200001 tokens > 200000 maximum",
      },
    },
  });
  const error = finalError(await collect(client()));
  assert.equal(error.code, "context_length");
  assert.equal(error.contextLimit, 200000);
  assert.match(error.message, /prompt is too long: 200001 tokens > 200000 maximum/);
});

test("a zero-input tool with no input_json_delta is a whole call with {}", async () => {
  stub.enqueue({
    type: "stream",
    parts: [
      sse(
        { type: "message_start", message: { usage: { input_tokens: 3, output_tokens: 1 } } },
        "message_start",
      ),
      sse(
        {
          type: "content_block_start",
          index: 0,
          content_block: { type: "tool_use", id: "toolu_z", name: "list", input: {} },
        },
        "content_block_start",
      ),
      sse({ type: "content_block_stop", index: 0 }, "content_block_stop"),
      sse(
        { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 5 } },
        "message_delta",
      ),
      sse({ type: "message_stop" }, "message_stop"),
    ],
  });
  const turn = doneTurn(await collect(client()));
  assert.deepEqual(turn.toolCalls[0]?.verdict, { type: "whole", args: {}, recovery: "strict" });
});

test("stop reasons agree across the wires: a whole tool_use under stop_sequence runs, under refusal it does not", async () => {
  const input = { path: "a.txt", content: "A\n" };
  stub.enqueue(anthropicToolUse({ name: "write_file", input, finishReason: "stop_sequence" }));
  assert.equal(doneTurn(await collect(client())).toolCalls[0]?.verdict.type, "whole");
  stub.enqueue(anthropicToolUse({ name: "write_file", input, finishReason: "refusal" }));
  assert.equal(doneTurn(await collect(client())).toolCalls[0]?.verdict.type, "poisoned");
});

// The Responses API wire: recorded streams of real servers (test/providers/fixtures/, sources in its
// README) served byte for byte by the stub, and the stub's own Responses streams for the faults.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import type {
  AssembledToolCall,
  AssistantMessage,
  ModelRequest,
} from "../../src/protocol/index.ts";
import { createResponsesClient, type ResponsesClientOptions } from "../../src/providers/index.ts";
import { responsesBody, responsesBodyText } from "../../src/providers/responses/responses-wire.ts";
import {
  openaiText,
  responsesStream,
  type Script,
  type StubEndpoint,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";
import { collect, doneTurn, finalError, recordedSleeps, sampleRequest } from "./helpers.ts";

let stub: StubEndpoint;
before(async () => {
  stub = await startStubEndpoint();
});
after(() => stub.close());

const client = (extra: Partial<ResponsesClientOptions> = {}) =>
  createResponsesClient({
    baseUrl: `${stub.url}/v1`,
    apiKey: "sk-responses-test",
    retry: recordedSleeps().retry,
    ...extra,
  });

/** A recorded body, served as its server sent it. */
function recorded(name: string): Script {
  const body = readFileSync(new URL(`fixtures/${name}`, import.meta.url), "utf8");
  if (name.endsWith(".json"))
    return {
      type: "reply",
      status: 200,
      headers: { "content-type": "application/json" },
      body,
    };
  return { type: "stream", status: 200, parts: [body] };
}

function verdictOf(call: AssembledToolCall | undefined) {
  assert.ok(call, "expected a tool call");
  return call.verdict;
}

test("OpenAI (recorded): a reasoning model's call runs whole, its summary is reasoning not answer, and its encrypted reasoning is kept for history", async () => {
  stub.enqueue(recorded("openai-reasoning-tool-call.sse"));
  const events = await collect(client(), sampleRequest({ model: "gpt-5.1-codex-max" }));
  const turn = doneTurn(events);
  assert.equal(turn.text, "");
  assert.match(turn.reasoning ?? "", /^\*\*Calculating step-by-step using calculator\*\*/);
  assert.equal(turn.toolCalls.length, 1);
  const call = turn.toolCalls[0];
  assert.equal(call?.id, "call_AB6AaRZ1FYZB2RwS6A5vbdqn");
  assert.equal(call?.name, "calculator");
  assert.deepEqual(verdictOf(call), {
    type: "whole",
    args: { a: 12, b: 7, op: "add" },
    recovery: "strict",
  });
  assert.deepEqual(turn.usage, { inputTokens: 134, outputTokens: 28, cacheReadTokens: 0 });
  const items = turn.replay?.responsesItems ?? [];
  assert.deepEqual(
    items.map((item) => item.type),
    ["reasoning", "function_call"],
  );
  // The encrypted content of the item's `done` event (it changes from `added`), and no item ids.
  assert.match(String(items[0]?.encrypted_content), /^gAAAAABpPDIVOKrsHNZ0/);
  assert.equal(items[0]?.id, undefined);
  assert.ok(events.some((e) => e.type === "reasoning_delta"));
  assert.ok(!events.some((e) => e.type === "text_delta"));
});

test("OpenAI (recorded): a text answer after tool results, with nothing to replay", async () => {
  stub.enqueue(recorded("openai-text-after-tools.sse"));
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.text, "The final result is **570**.");
  assert.equal(turn.toolCalls.length, 0);
  assert.equal(turn.stopReason, "stop");
  assert.equal(turn.replay, undefined);
  assert.deepEqual(turn.usage, { inputTokens: 299, outputTokens: 12, cacheReadTokens: 0 });
});

test("OpenRouter gpt-oss (recorded): reasoning text stays out of the answer; the keep-alive comment and the trailing [DONE] are harmless", async () => {
  stub.enqueue(recorded("openrouter-gpt-oss-reasoning.sse"));
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.text, "4");
  assert.equal(
    turn.reasoning,
    'The user asks: "What is 2+2?" They expect a straightforward answer: 4. Just answer 4.',
  );
  assert.equal(turn.terminated, true);
  assert.deepEqual(turn.usage, { inputTokens: 78, outputTokens: 37, cacheReadTokens: 0 });
  // Reasoning goes back only on a turn that called tools.
  assert.equal(turn.replay, undefined);
});

test("OpenAI (recorded): a whole (non-streamed) response's call is whole", async () => {
  stub.enqueue(recorded("openai-whole-tool-call.json"));
  const turn = doneTurn(await collect(client({ stream: false })));
  assert.equal(turn.toolCalls[0]?.id, "call_YfwRsW8sUxDKipwyhWTzOXCA");
  assert.deepEqual(verdictOf(turn.toolCalls[0]), {
    type: "whole",
    args: { country: "PotatoLand" },
    recovery: "strict",
  });
  assert.deepEqual(turn.usage, { inputTokens: 40, outputTokens: 18, cacheReadTokens: 0 });
  const sent = stub.requests.at(-1)?.body as Record<string, unknown>;
  assert.equal(sent.stream, false);
});

test("OpenAI (recorded): an error event (insufficient_quota) before any output is a rate limit, retried then told with the server's words", async () => {
  const fixture = recorded("openai-error-quota.sse");
  stub.enqueue(fixture, fixture, fixture, fixture);
  const before = stub.requestsTo("/v1/responses").length;
  const error = finalError(await collect(client()));
  assert.equal(error.code, "rate_limited");
  assert.match(error.message, /You exceeded your current quota/);
  assert.equal(stub.requestsTo("/v1/responses").length - before, 4);
});

test("the request: instructions, input items with calls and their outputs by call_id, function tools not strict, max_output_tokens, store false", async () => {
  stub.enqueue(responsesStream({ text: "ok" }));
  const request = sampleRequest({
    maxTokens: 2048,
    messages: [
      { type: "user", text: "write a.txt" },
      {
        type: "assistant",
        text: "Writing.",
        toolCalls: [{ id: "call_a", name: "write_file", argumentsText: '{"path":"a.txt"}' }],
      },
      {
        type: "tool_result",
        toolCallId: "call_a",
        toolName: "write_file",
        content: "wrote",
        isError: false,
      },
      { type: "user", text: "and now?" },
    ],
  });
  doneTurn(await collect(client(), request));
  const sent = stub.requests.at(-1);
  assert.equal(sent?.path, "/v1/responses");
  assert.equal(sent?.headers.authorization, "Bearer sk-responses-test");
  const body = sent?.body as Record<string, unknown>;
  assert.equal(body.instructions, "You are nex.");
  assert.deepEqual(body.input, [
    { role: "user", content: "write a.txt" },
    { role: "assistant", content: "Writing." },
    { type: "function_call", call_id: "call_a", name: "write_file", arguments: '{"path":"a.txt"}' },
    { type: "function_call_output", call_id: "call_a", output: "wrote" },
    { role: "user", content: "and now?" },
  ]);
  const tools = body.tools as Record<string, unknown>[];
  assert.equal(tools[0]?.type, "function");
  assert.equal(tools[0]?.name, "write_file");
  assert.equal(tools[0]?.strict, false);
  assert.equal(body.max_output_tokens, 2048);
  assert.equal(body.store, false);
  assert.equal(body.stream, true);
  // Not a reasoning model: no encrypted reasoning asked for (other models refuse the include).
  assert.equal(body.include, undefined);
  assert.equal(sent?.rawBody, JSON.stringify(responsesBody(request, { stream: true })));
});

test("a reasoning model's tool turn goes back with its reasoning item first, as it came, and without ids", async () => {
  stub.enqueue(
    responsesStream({
      reasoning: "Plan the write.",
      encrypted: "gAAAA-opaque",
      calls: [{ name: "write_file", args: { path: "a.txt", content: "hi" }, callId: "call_w" }],
    }),
  );
  const first = doneTurn(await collect(client(), sampleRequest({ model: "gpt-5" })));
  assert.equal(first.toolCalls[0]?.verdict.type, "whole");
  const assistant: AssistantMessage = {
    type: "assistant",
    text: first.text,
    toolCalls: first.toolCalls.map(({ id, name, argumentsText }) => ({ id, name, argumentsText })),
    ...(first.replay ? { replay: first.replay } : {}),
  };
  const next: ModelRequest = sampleRequest({
    model: "gpt-5",
    reasoning: { effort: "high" },
    messages: [
      { type: "user", text: "write a.txt" },
      assistant,
      {
        type: "tool_result",
        toolCallId: "call_w",
        toolName: "write_file",
        content: "wrote 2 bytes",
        isError: false,
      },
    ],
  });
  const body = JSON.parse(responsesBodyText(next, { stream: true })) as Record<string, unknown>;
  assert.deepEqual(body.input, [
    { role: "user", content: "write a.txt" },
    {
      type: "reasoning",
      summary: [{ type: "summary_text", text: "Plan the write." }],
      encrypted_content: "gAAAA-opaque",
    },
    {
      type: "function_call",
      call_id: "call_w",
      name: "write_file",
      arguments: '{"path":"a.txt","content":"hi"}',
    },
    { type: "function_call_output", call_id: "call_w", output: "wrote 2 bytes" },
  ]);
  assert.deepEqual(body.include, ["reasoning.encrypted_content"]);
  assert.deepEqual(body.reasoning, { effort: "high" });
});

test("a reasoning item with neither encrypted content nor text is not sent back (with store false it refers to nothing)", async () => {
  stub.enqueue(
    responsesStream({
      reasoning: "",
      calls: [{ name: "write_file", args: { path: "a.txt", content: "x" } }],
    }),
  );
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.toolCalls[0]?.verdict.type, "whole");
  assert.equal(turn.replay, undefined);
});

test("a stream cut mid-arguments poisons the call, and the request is not sent again", async () => {
  stub.enqueue(
    responsesStream({
      text: "Writing it.",
      calls: [{ name: "write_file", args: { path: "a.txt", content: "x".repeat(200) }, cutAt: 60 }],
      end: "destroy",
    }),
  );
  const before = stub.requestsTo("/v1/responses").length;
  const turn = doneTurn(await collect(client()));
  const verdict = verdictOf(turn.toolCalls[0]);
  assert.equal(verdict.type, "poisoned");
  assert.equal(verdict.type === "poisoned" && verdict.cause, "stream_dropped");
  assert.equal(verdict.type === "poisoned" && verdict.bytesReceived, 60);
  assert.equal(turn.text, "Writing it.");
  assert.equal(stub.requestsTo("/v1/responses").length - before, 1);
});

test("a call whose item completed is still refused when the response never completed", async () => {
  stub.enqueue(
    responsesStream({
      calls: [{ name: "write_file", args: { path: "a.txt", content: "x" } }],
      ending: "none",
    }),
  );
  const verdict = verdictOf(doneTurn(await collect(client())).toolCalls[0]);
  assert.equal(verdict.type === "poisoned" && verdict.cause, "stream_dropped");
  assert.match(verdict.type === "poisoned" ? verdict.reason : "", /response\.completed/);
});

test("response.incomplete (max_output_tokens) cuts the call even when its arguments parse", async () => {
  stub.enqueue(
    responsesStream({
      calls: [
        { name: "write_file", args: { path: "a.txt", content: "short" }, status: "incomplete" },
      ],
      ending: "incomplete",
      usage: { input: 10, output: 4096 },
    }),
  );
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.stopReason, "length");
  assert.equal(turn.rawStopReason, "max_output_tokens");
  const verdict = verdictOf(turn.toolCalls[0]);
  assert.equal(verdict.type === "poisoned" && verdict.cause, "output_limit");
});

test("a call whose item ended `incomplete` is refused even under response.completed", async () => {
  stub.enqueue(
    responsesStream({
      calls: [{ name: "write_file", args: { path: "a.txt", content: "x" }, status: "incomplete" }],
    }),
  );
  const verdict = verdictOf(doneTurn(await collect(client())).toolCalls[0]);
  assert.equal(verdict.type === "poisoned" && verdict.cause, "stream_dropped");
});

test("response.incomplete for a content filter is an abnormal stop: the call does not run", async () => {
  stub.enqueue(
    responsesStream({
      calls: [{ name: "write_file", args: { path: "a.txt", content: "x" } }],
      ending: "incomplete",
      incompleteReason: "content_filter",
    }),
  );
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.stopReason, "content_filter");
  assert.equal(verdictOf(turn.toolCalls[0]).type, "poisoned");
});

test("an error event before any output is retried like the status it names; after output it cuts the turn", async () => {
  stub.enqueue(
    responsesStream({
      ending: "error",
      error: { code: "server_error", message: "The server had an error" },
    }),
    responsesStream({ text: "after retry" }),
  );
  const events = await collect(client());
  assert.equal(doneTurn(events).text, "after retry");
  const failed = events.find((e) => e.type === "attempt_failed");
  assert.equal(failed?.type === "attempt_failed" && failed.error.status, 500);

  stub.enqueue(
    responsesStream({
      calls: [{ name: "write_file", args: { path: "a.txt", content: "x" } }],
      ending: "error",
      error: { code: "server_error", message: "stream broke" },
    }),
  );
  const before = stub.requestsTo("/v1/responses").length;
  const cut = doneTurn(await collect(client()));
  const verdict = verdictOf(cut.toolCalls[0]);
  assert.equal(verdict.type === "poisoned" && verdict.cause, "stream_dropped");
  assert.match(cut.dropDetail ?? "", /stream broke/);
  assert.equal(stub.requestsTo("/v1/responses").length - before, 1);
});

test("response.failed before any output: a rate limit is retried, a bad request is told at once", async () => {
  stub.enqueue(
    responsesStream({
      ending: "failed",
      error: { code: "rate_limit_exceeded", message: "Rate limit reached for requests" },
    }),
    responsesStream({ text: "ok" }),
  );
  const events = await collect(client());
  assert.equal(doneTurn(events).text, "ok");
  assert.ok(events.some((e) => e.type === "attempt_failed" && e.error.status === 429));

  stub.enqueue(
    responsesStream({
      ending: "failed",
      error: { code: "invalid_prompt", message: "Invalid prompt: flagged" },
    }),
  );
  const before = stub.requestsTo("/v1/responses").length;
  const error = finalError(await collect(client()));
  assert.match(error.message, /Invalid prompt: flagged/);
  assert.equal(stub.requestsTo("/v1/responses").length - before, 1);
});

test("a 429 with Retry-After waits as told, then the answer is read", async () => {
  const { waits, retry } = recordedSleeps();
  stub.enqueue(status(429, { headers: { "retry-after": "2" } }), responsesStream({ text: "ok" }));
  const turn = doneTurn(await collect(client({ retry })));
  assert.equal(turn.text, "ok");
  assert.deepEqual(waits, [2000]);
});

test("cached input tokens are read from input_tokens_details", async () => {
  stub.enqueue(
    responsesStream({ text: "ok", usage: { input: 5000, output: 3 }, cachedTokens: 4096 }),
  );
  const turn = doneTurn(await collect(client()));
  assert.deepEqual(turn.usage, { inputTokens: 5000, outputTokens: 3, cacheReadTokens: 4096 });
});

test("a Chat Completions stream at /responses is told as the wrong API, with the setting to change", async () => {
  stub.enqueue(openaiText("hello"));
  const error = finalError(await collect(client()));
  assert.equal(error.code, "invalid_response");
  assert.match(error.message, /not Responses API events/);
  assert.match(error.message, /"api": "responses"/);
});

test("a limit below the API's least max_output_tokens (16) is sent as 16, and output past the asked limit still cuts the call", async () => {
  assert.equal(
    responsesBody(sampleRequest({ maxTokens: 5 }), { stream: true }).max_output_tokens,
    16,
  );
  stub.enqueue(
    responsesStream({
      calls: [{ name: "write_file", args: { path: "a.txt", content: "x" } }],
      usage: { input: 10, output: 12 },
    }),
  );
  const turn = doneTurn(await collect(client(), sampleRequest({ maxTokens: 5 })));
  const verdict = verdictOf(turn.toolCalls[0]);
  assert.equal(verdict.type === "poisoned" && verdict.cause, "output_limit");
});

test("encrypted reasoning is asked of OpenAI's reasoning families only (other models refuse the include)", () => {
  const include = (model: string) =>
    responsesBody(sampleRequest({ model }), { stream: true }).include !== undefined;
  for (const model of ["gpt-5", "gpt-5.1-codex-max", "o3", "o4-mini", "openai/gpt-5-mini"])
    assert.ok(include(model), model);
  for (const model of [
    "gpt-4o",
    "gpt-4.1",
    "gpt-5-chat-latest",
    "openai/gpt-oss-20b",
    "qwen3-coder",
  ])
    assert.ok(!include(model), model);
});

test("a server that numbers no items: calls are told apart by their item ids, and a second message starts a paragraph", async () => {
  const event = (data: Record<string, unknown>) =>
    `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const call = (id: string, callId: string, args: string) => [
    event({
      type: "response.output_item.added",
      item: { id, type: "function_call", call_id: callId, name: "write_file", arguments: "" },
    }),
    event({ type: "response.function_call_arguments.delta", item_id: id, delta: args }),
    event({
      type: "response.output_item.done",
      item: {
        id,
        type: "function_call",
        status: "completed",
        call_id: callId,
        name: "write_file",
        arguments: args,
      },
    }),
  ];
  const message = (id: string, text: string) => [
    event({ type: "response.output_item.added", item: { id, type: "message", content: [] } }),
    event({ type: "response.output_text.delta", item_id: id, delta: text }),
  ];
  stub.enqueue({
    type: "stream",
    parts: [
      ...message("m1", "First."),
      ...call("fc1", "call_1", '{"path":"a.txt","content":"a"}'),
      ...call("fc2", "call_2", '{"path":"b.txt","content":"b"}'),
      ...message("m2", "Then."),
      event({ type: "response.completed", response: { status: "completed" } }),
    ],
  });
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.text, "First.\n\nThen.");
  assert.deepEqual(
    turn.toolCalls.map((c) => [c.id, c.verdict.type === "whole" && c.verdict.args.path]),
    [
      ["call_1", "a.txt"],
      ["call_2", "b.txt"],
    ],
  );
});

test("a 404 at /responses that is not about the model says to remove the api setting; one about the model does not", async () => {
  stub.enqueue(status(404, { body: { error: { message: "Not Found" } } }));
  const route = finalError(await collect(client()));
  assert.equal(route.code, "not_found");
  assert.match(route.message, /needs "api": "responses" removed from the config; nex doctor/);
  stub.enqueue(status(404, { body: { error: { message: "The model `x` does not exist." } } }));
  const model = finalError(await collect(client()));
  assert.doesNotMatch(model.message, /"api"/);
});

test("arguments are parsed strictly: a completed call whose JSON does not parse is refused, never repaired", async () => {
  stub.enqueue(
    responsesStream({ calls: [{ name: "write_file", args: '{"path":"a.txt","content":"x"' }] }),
  );
  const verdict = verdictOf(doneTurn(await collect(client())).toolCalls[0]);
  assert.equal(verdict.type === "poisoned" && verdict.cause, "unparseable");
});

test("a whole (non-streamed) incomplete response refuses its calls", async () => {
  stub.enqueue({
    type: "reply",
    status: 200,
    body: {
      id: "resp_x",
      object: "response",
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [
        {
          id: "fc_1",
          type: "function_call",
          status: "incomplete",
          call_id: "call_1",
          name: "write_file",
          arguments: '{"path":"a.txt","content":"x"}',
        },
      ],
      usage: { input_tokens: 10, output_tokens: 16, input_tokens_details: { cached_tokens: 0 } },
    },
  });
  const turn = doneTurn(await collect(client({ stream: false })));
  assert.equal(turn.stopReason, "length");
  assert.equal(verdictOf(turn.toolCalls[0]).type === "poisoned", true);
});

test("a call a server ends only in response.completed (no output_item.done) is judged by the final response's item", async () => {
  const event = (data: Record<string, unknown>) =>
    `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const args = '{"path":"a.txt","content":"a"}';
  const final = (status: string) => ({
    id: "fc1",
    type: "function_call",
    status,
    call_id: "call_1",
    name: "write_file",
    arguments: args,
  });
  const stream = (status: string) => ({
    type: "stream" as const,
    parts: [
      event({
        type: "response.output_item.added",
        output_index: 0,
        item: { ...final("in_progress"), arguments: "" },
      }),
      event({
        type: "response.function_call_arguments.delta",
        output_index: 0,
        item_id: "fc1",
        delta: args,
      }),
      event({
        type: "response.completed",
        response: { status: "completed", output: [final(status)] },
      }),
    ],
  });
  stub.enqueue(stream("completed"), stream("incomplete"));
  const whole = doneTurn(await collect(client()));
  assert.equal(whole.toolCalls.length, 1);
  assert.equal(verdictOf(whole.toolCalls[0]).type, "whole");
  const cut = doneTurn(await collect(client()));
  assert.equal(cut.toolCalls.length, 1);
  assert.equal(verdictOf(cut.toolCalls[0]).type, "poisoned");
});

test("arguments whose deltas differ from the whole text sent at the call's end (a lost event) are refused, and the loss told", async () => {
  const event = (data: Record<string, unknown>) =>
    `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;
  const whole = '{"path":"a.txt","content":"abcdef"}';
  const item = { id: "fc1", type: "function_call", call_id: "call_1", name: "write_file" };
  stub.enqueue({
    type: "stream",
    parts: [
      event({
        type: "response.output_item.added",
        output_index: 0,
        item: { ...item, arguments: "" },
      }),
      // The middle delta (`cd`) never arrives: what is left still parses.
      event({
        type: "response.function_call_arguments.delta",
        output_index: 0,
        delta: '{"path":"a.txt","content":"ab',
      }),
      event({ type: "response.function_call_arguments.delta", output_index: 0, delta: 'ef"}' }),
      event({ type: "response.function_call_arguments.done", output_index: 0, arguments: whole }),
      event({
        type: "response.output_item.done",
        output_index: 0,
        item: { ...item, status: "completed", arguments: whole },
      }),
      event({ type: "response.completed", response: { status: "completed" } }),
    ],
  });
  const turn = doneTurn(await collect(client()));
  const verdict = verdictOf(turn.toolCalls[0]);
  assert.equal(verdict.type, "poisoned");
  assert.match(verdict.type === "poisoned" ? verdict.reason : "", /part of the stream was lost/);
});

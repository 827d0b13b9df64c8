import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { anthropicBodyText } from "../../src/providers/anthropic/anthropic-wire.ts";
import { createOpenAIClient } from "../../src/providers/index.ts";
import { openaiBodyText } from "../../src/providers/openai/openai-wire.ts";
import {
  destroy,
  openaiCompletion,
  openaiText,
  openaiToolCall,
  openaiToolCalls,
  type StubEndpoint,
  sse,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";
import { collect, doneTurn, finalError, recordedSleeps, sampleRequest } from "./helpers.ts";

let stub: StubEndpoint;
before(async () => {
  stub = await startStubEndpoint();
});
after(() => stub.close());

const client = (
  extra: Parameters<typeof createOpenAIClient>[0] extends infer T ? Partial<T> : never = {},
) =>
  createOpenAIClient({
    baseUrl: `${stub.url}/v1`,
    apiKey: "sk-openai-test",
    retry: recordedSleeps().retry,
    ...extra,
  });

test("the request body is the whole translated conversation: system, history with tool results, tools, max_tokens, stream_options", async () => {
  stub.enqueue(openaiText("ok"));
  const before = stub.requests.length;
  const request = sampleRequest({
    maxTokens: 2048,
    messages: [
      { type: "user", text: "write a.txt" },
      {
        type: "assistant",
        text: "Writing it.",
        toolCalls: [
          { id: "call_a", name: "write_file", argumentsText: '{"path":"a.txt","content":"hi"}' },
          { id: "call_b", name: "write_file", argumentsText: '{"path":"b.txt","content":"cut of' },
        ],
      },
      {
        type: "tool_result",
        toolCallId: "call_a",
        toolName: "write_file",
        content: "wrote 2 bytes",
        isError: false,
      },
      {
        type: "tool_result",
        toolCallId: "call_b",
        toolName: "write_file",
        content: "refused: cut off",
        isError: true,
      },
      {
        type: "assistant",
        text: "",
        toolCalls: [{ id: "call_c", name: "list", argumentsText: "" }],
      },
      {
        type: "tool_result",
        toolCallId: "call_c",
        toolName: "list",
        content: "a.txt",
        isError: false,
      },
    ],
  });
  const turn = doneTurn(await collect(client(), request));
  assert.equal(turn.text, "ok");
  const sent = stub.requests[before];
  assert.ok(sent);
  assert.equal(sent.method, "POST");
  assert.equal(sent.path, "/v1/chat/completions");
  assert.equal(sent.headers.authorization, "Bearer sk-openai-test");
  assert.deepEqual(sent.body, {
    model: "stub-model",
    messages: [
      { role: "system", content: "You are nex." },
      { role: "user", content: "write a.txt" },
      {
        role: "assistant",
        content: "Writing it.",
        tool_calls: [
          {
            id: "call_a",
            type: "function",
            function: { name: "write_file", arguments: '{"path":"a.txt","content":"hi"}' },
          },
          // A poisoned call kept in history goes back as "{}" so that servers parsing history accept it.
          { id: "call_b", type: "function", function: { name: "write_file", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "wrote 2 bytes" },
      { role: "tool", tool_call_id: "call_b", content: "refused: cut off" },
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_c", type: "function", function: { name: "list", arguments: "{}" } },
        ],
      },
      { role: "tool", tool_call_id: "call_c", content: "a.txt" },
    ],
    tools: [
      {
        type: "function",
        function: {
          name: "write_file",
          description: "Write a file",
          parameters: {
            type: "object",
            properties: { path: { type: "string" }, content: { type: "string" } },
            required: ["path", "content"],
          },
        },
      },
    ],
    max_tokens: 2048,
    stream: true,
    stream_options: { include_usage: true },
  });
});

test("a streamed text answer arrives as deltas and one done with usage and stop reason", async () => {
  stub.enqueue(openaiText("hello world", { usage: { input: 30, output: 3 } }));
  const events = await collect(client());
  assert.deepEqual(
    events
      .filter((e) => e.type === "text_delta")
      .map((e) => (e.type === "text_delta" ? e.text : "")),
    ["hell", "o wo", "rld"],
  );
  const turn = doneTurn(events);
  assert.equal(turn.text, "hello world");
  assert.equal(turn.stopReason, "stop");
  assert.equal(turn.terminated, true);
  assert.deepEqual(turn.usage, { inputTokens: 30, outputTokens: 3 });
});

test("a whole streamed tool call is dispatchable with its exact argument text", async () => {
  const args = { path: "src/main.rs", content: "fn main() {}\n".repeat(50) };
  stub.enqueue(openaiToolCall({ name: "write_file", args, chunkSize: 5, text: "Let me write." }));
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.text, "Let me write.");
  assert.equal(turn.toolCalls.length, 1);
  assert.deepEqual(turn.toolCalls[0], {
    id: "call_1",
    name: "write_file",
    argumentsText: JSON.stringify(args),
    verdict: { type: "whole", args, recovery: "strict" },
  });
});

test("several tool calls in one stream are assembled per index", async () => {
  stub.enqueue(
    openaiToolCalls([
      { name: "read_file", args: { path: "a" } },
      { name: "read_file", args: { path: "b" } },
    ]),
  );
  const turn = doneTurn(await collect(client()));
  assert.deepEqual(
    turn.toolCalls.map((call) => [
      call.id,
      call.verdict.type === "whole" && call.verdict.args.path,
    ]),
    [
      ["call_1", "a"],
      ["call_2", "b"],
    ],
  );
});

test("calls that share an id (or have none) get ids unique within the turn, so each result answers one call", async () => {
  stub.enqueue(
    openaiToolCalls([
      { name: "read_file", args: { path: "a" }, id: "call_0" },
      { name: "read_file", args: { path: "b" }, id: "call_0" },
      { name: "read_file", args: { path: "c" }, id: "call_0" },
    ]),
  );
  const turn = doneTurn(await collect(client()));
  const ids = turn.toolCalls.map((call) => call.id);
  assert.equal(new Set(ids).size, 3, `ids: ${ids.join(", ")}`);
  assert.equal(ids[0], "call_0");
  assert.deepEqual(
    turn.toolCalls.map((call) => call.verdict.type === "whole" && call.verdict.args.path),
    ["a", "b", "c"],
  );
});

test("calls a server numbers all 0 are kept apart by their ids, while fragments that repeat a changing id continue their call", async () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
  const call = (id: string, name: string | undefined, args: string) => ({
    tool_calls: [
      { index: 0, id, type: "function", function: { ...(name ? { name } : {}), arguments: args } },
    ],
  });
  const stream = (parts: string[]) => ({
    type: "stream" as const,
    status: 200,
    headers: { "content-type": "text/event-stream" },
    parts: [...parts, chunk({}, "tool_calls"), sse("[DONE]")],
    delayMs: 0,
    end: "close" as const,
  });
  stub.enqueue(
    stream([
      chunk(call("a", "read_file", '{"path":')),
      chunk(call("a", undefined, '"a.txt"}')),
      chunk(call("b", "read_file", '{"path":"b.txt"}')),
    ]),
  );
  const apart = doneTurn(await collect(client()));
  assert.deepEqual(
    apart.toolCalls.map((c) => c.verdict.type === "whole" && c.verdict.args.path),
    ["a.txt", "b.txt"],
  );
  stub.enqueue(
    stream([chunk(call("x1", "read_file", '{"path":')), chunk(call("x2", undefined, '"c.txt"}'))]),
  );
  const continued = doneTurn(await collect(client()));
  assert.equal(continued.toolCalls.length, 1);
  assert.deepEqual(continued.toolCalls[0]?.verdict, {
    type: "whole",
    args: { path: "c.txt" },
    recovery: "strict",
  });
});

test("a stream whose socket is destroyed mid-arguments ends done, not terminated, with the call poisoned as stream_dropped", async () => {
  stub.enqueue(
    openaiToolCall({
      name: "write_file",
      args: { path: "a.txt", content: "x".repeat(500) },
      cutAt: 300,
      end: "destroy",
    }),
  );
  const events = await collect(client());
  const turn = doneTurn(events);
  assert.equal(turn.terminated, false);
  const verdict = turn.toolCalls[0]?.verdict;
  assert.equal(verdict?.type, "poisoned");
  assert.equal(verdict?.type === "poisoned" && verdict.cause, "stream_dropped");
  assert.equal(verdict?.type === "poisoned" && verdict.bytesReceived, 300);
  assert.equal(
    events.filter((e) => e.type === "attempt_started").length,
    1,
    "output had flowed: no silent retry",
  );
});

test("finish_reason stop with usage equal to max_tokens is a relabelled truncation and is poisoned", async () => {
  stub.enqueue(
    openaiToolCall({
      name: "write_file",
      args: '{"path":"a.txt","content":"partial',
      finishReason: "stop",
      usage: { input: 100, output: 4096 },
    }),
  );
  const turn = doneTurn(await collect(client(), sampleRequest({ maxTokens: 4096 })));
  assert.deepEqual(turn.toolCalls[0]?.verdict, {
    type: "poisoned",
    cause: "output_limit",
    reason: "output was cut off at the 4096-token output limit while writing `content`",
    bytesReceived: 34,
  });
});

test("a streamed call whose arguments come as an object (some Ollama and LM Studio versions) is dispatchable, and still judged by its ending", async () => {
  const args = { path: "notes/日本.md", content: "# 見出し\nline two\n" };
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
  const objectCall = chunk({
    role: "assistant",
    tool_calls: [
      {
        index: 0,
        id: "call_o",
        type: "function",
        function: { name: "write_file", arguments: args },
      },
    ],
  });
  const stream = (parts: string[]) => ({
    type: "stream" as const,
    status: 200,
    headers: { "content-type": "text/event-stream" },
    parts,
    delayMs: 0,
    end: "close" as const,
  });
  stub.enqueue(stream([objectCall, chunk({}, "tool_calls"), sse("[DONE]")]));
  const whole = doneTurn(await collect(client()));
  assert.deepEqual(whole.toolCalls[0]?.verdict, { type: "whole", args, recovery: "strict" });

  stub.enqueue(stream([objectCall, chunk({}, "length"), sse("[DONE]")]));
  const cut = doneTurn(await collect(client()));
  assert.equal(cut.toolCalls[0]?.verdict.type, "poisoned");
});

test("a stream without [DONE] poisons even complete-looking arguments", async () => {
  stub.enqueue(
    openaiToolCall({ name: "write_file", args: { path: "a", content: "b" }, includeDone: false }),
  );
  const turn = doneTurn(await collect(client()));
  assert.equal(turn.terminated, false);
  const verdict = turn.toolCalls[0]?.verdict;
  assert.equal(verdict?.type === "poisoned" && verdict.cause, "stream_dropped");
  assert.match(
    verdict?.type === "poisoned" ? verdict.reason : "",
    /before its terminator \(\[DONE\]\)/,
  );
});

test("lossless recoveries through the wire are dispatchable and marked: fence and one object in noise", async () => {
  stub.enqueue(
    openaiToolCalls([
      { name: "write_file", args: '```json\n{"path":"f.txt","content":"fenced"}\n```' },
      { name: "write_file", args: 'Arguments: {"path":"n.txt","content":"noisy"} (end)' },
    ]),
  );
  const turn = doneTurn(await collect(client()));
  assert.deepEqual(
    turn.toolCalls.map((call) => call.verdict),
    [
      { type: "whole", args: { path: "f.txt", content: "fenced" }, recovery: "fence" },
      { type: "whole", args: { path: "n.txt", content: "noisy" }, recovery: "extracted" },
    ],
  );
});

test("a lossy call (an unclosed string under a clean stop) is refused with the reason", async () => {
  stub.enqueue(openaiToolCall({ name: "write_file", args: '{"path":"a.txt","content":"abc' }));
  const verdict = doneTurn(await collect(client())).toolCalls[0]?.verdict;
  assert.equal(verdict?.type === "poisoned" && verdict.cause, "unparseable");
  assert.match(
    verdict?.type === "poisoned" ? verdict.reason : "",
    /unfinished string while writing `content`/,
  );
});

test("non-streaming mode sends stream false and judges the complete JSON body", async () => {
  stub.enqueue(
    openaiCompletion({
      text: "done",
      toolCalls: [{ name: "write_file", args: { path: "a", content: "b" } }],
    }),
  );
  const before = stub.requests.length;
  const turn = doneTurn(await collect(client({ stream: false })));
  const body = stub.requests[before]?.body as Record<string, unknown>;
  assert.equal(body.stream, false);
  assert.equal("stream_options" in body, false);
  assert.equal(turn.terminated, true);
  assert.equal(turn.text, "done");
  assert.deepEqual(turn.toolCalls[0]?.verdict, {
    type: "whole",
    args: { path: "a", content: "b" },
    recovery: "strict",
  });
});

test("a non-streamed body with finish_reason length poisons its call", async () => {
  stub.enqueue(
    openaiCompletion({
      toolCalls: [{ name: "write_file", args: '{"path":"a","content":"x' }],
      finishReason: "length",
      usage: { input: 5, output: 4096 },
    }),
  );
  const verdict = doneTurn(await collect(client({ stream: false }))).toolCalls[0]?.verdict;
  assert.equal(verdict?.type === "poisoned" && verdict.cause, "output_limit");
});

test("a connection destroyed before any output is retried, then the answer is used", async () => {
  stub.enqueue(destroy(), openaiText("second try"));
  const events = await collect(client());
  assert.equal(doneTurn(events).text, "second try");
  const failed = events.find((e) => e.type === "attempt_failed");
  assert.equal(failed?.type === "attempt_failed" && failed.error.code, "network");
});

test("end-to-end: a tool call stream cut at every byte offset of its body never yields a dispatchable call", async () => {
  const script = openaiToolCall({
    name: "write_file",
    args: { path: "a.txt", content: "hé\n世" },
    chunkSize: 8,
  });
  assert.equal(script.type, "stream");
  const body = script.type === "stream" ? script.parts.join("") : "";
  const total = Buffer.byteLength(body);
  // Cuts before the first tool-call chunk carry no call (and are retried); every offset after it is tried.
  const firstCall = Buffer.byteLength(body.slice(0, body.indexOf("tool_calls")));
  // A cut before any output is retried by the client: answer the retry with a 400 to keep the test quick.
  const served = new Set<string>();
  const cutStub = await startStubEndpoint({
    handler: (request) => {
      const cut = request.headers["x-cut"] ?? "";
      if (served.has(cut)) return status(400);
      served.add(cut);
      return { ...script, cutBodyAt: Number(cut) };
    },
  });
  const verdictsAt = async (cut: number) => {
    const cutClient = createOpenAIClient({
      baseUrl: `${cutStub.url}/v1`,
      headers: { "x-cut": String(cut) },
      retry: recordedSleeps().retry,
    });
    const end = (await collect(cutClient)).at(-1);
    return end?.type === "done" ? end.turn.toolCalls.map((call) => call.verdict.type) : [];
  };
  try {
    const cuts = Array.from({ length: total - firstCall + 20 }, (_, i) => firstCall - 20 + i);
    let judged = 0;
    for (let i = 0; i < cuts.length; i += 32) {
      const batch = cuts.slice(i, i + 32);
      const verdicts = await Promise.all(batch.map(verdictsAt));
      verdicts.forEach((types, j) => {
        judged += types.length;
        assert.ok(
          types.every((type) => type === "poisoned"),
          `cut at byte ${batch[j]} of ${total}`,
        );
      });
    }
    assert.ok(judged > 300, `only ${judged} cuts carried a call`);
    assert.deepEqual(await verdictsAt(total), ["whole"]);
  } finally {
    await cutStub.close();
  }
});

test("a refused call that arrived without a name goes back in history with a placeholder name, never an empty one", async () => {
  const request = {
    model: "m",
    system: "s",
    messages: [
      {
        type: "assistant" as const,
        text: "",
        toolCalls: [{ id: "c1", name: "", argumentsText: '{"path":"a"}' }],
      },
      {
        type: "tool_result" as const,
        toolCallId: "c1",
        toolName: "",
        content: "Not executed",
        isError: true,
      },
    ],
    tools: [],
    maxTokens: 100,
    requestId: 1,
  };
  assert.match(
    openaiBodyText(request, { stream: true, maxTokensField: "max_tokens" }),
    /"name":"unnamed_tool_call"/,
  );
  assert.match(anthropicBodyText(request, { stream: true }), /"name":"unnamed_tool_call"/);
});

test("an endless body is cut off at the response cap: never retried when nothing came, and a call in it is never run", async () => {
  const flood = {
    type: "stream" as const,
    status: 200,
    headers: { "content-type": "text/event-stream" },
    parts: ["x".repeat(1024 * 1024), "x".repeat(1024 * 1024)],
    delayMs: 0,
    end: "close" as const,
  };
  const before = stub.requests.length;
  stub.enqueue(flood);
  const error = finalError(await collect(client({ maxResponseBytes: 1024 * 1024 })));
  assert.equal(error.code, "invalid_response");
  assert.equal(error.retryable, false);
  assert.match(error.message, /more than 1 MiB in one response/);
  assert.equal(stub.requests.length - before, 1, "a flood is not asked for again");

  stub.enqueue(
    openaiToolCall({
      name: "write_file",
      args: { path: "big.txt", content: "y".repeat(1_500_000) },
    }),
  );
  const turn = doneTurn(await collect(client({ maxResponseBytes: 1024 * 1024 })));
  const verdict = turn.toolCalls[0]?.verdict;
  assert.equal(verdict?.type, "poisoned");
  // Whichever bound comes first: the byte cap, or output far beyond the max_tokens asked for.
  assert.match(
    verdict?.type === "poisoned" ? verdict.reason : "",
    /more than 1 MiB|far beyond the max_tokens/,
  );
});

test("servers that end a whole call with eos, eos_token or stop_sequence (TGI, some llama.cpp builds) have it run; content_filter or an unknown reason does not", async () => {
  const args = { path: "a.txt", content: "x\n" };
  for (const finishReason of ["eos", "eos_token", "stop_sequence", "end_turn"]) {
    stub.enqueue(openaiToolCall({ name: "write_file", args, finishReason }));
    const turn = doneTurn(await collect(client()));
    assert.equal(turn.toolCalls[0]?.verdict.type, "whole", finishReason);
  }
  for (const finishReason of ["content_filter", "error", "cancelled"]) {
    stub.enqueue(openaiToolCall({ name: "write_file", args, finishReason }));
    const turn = doneTurn(await collect(client()));
    assert.equal(turn.toolCalls[0]?.verdict.type, "poisoned", finishReason);
  }
});

test("a call name sent in pieces is joined, and a name repeated in every delta is taken once", async () => {
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({ object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] });
  const piece = (name: string | undefined, args: string) => ({
    tool_calls: [
      {
        index: 0,
        ...(name === undefined ? {} : { function: { name, arguments: args } }),
        ...(name === undefined ? { function: { arguments: args } } : {}),
      },
    ],
  });
  const stream = (parts: string[]) => ({
    type: "stream" as const,
    status: 200,
    headers: { "content-type": "text/event-stream" },
    parts: [...parts, chunk({}, "tool_calls"), sse("[DONE]")],
    delayMs: 0,
    end: "close" as const,
  });
  stub.enqueue(
    stream([
      chunk(piece("read_", "")),
      chunk(piece("file", '{"path":')),
      chunk(piece(undefined, '"a.txt"}')),
    ]),
  );
  assert.equal(doneTurn(await collect(client())).toolCalls[0]?.name, "read_file");
  stub.enqueue(
    stream([chunk(piece("read_file", '{"path":')), chunk(piece("read_file", '"a.txt"}'))]),
  );
  const repeated = doneTurn(await collect(client())).toolCalls[0];
  assert.equal(repeated?.name, "read_file");
  assert.deepEqual(repeated?.verdict, {
    type: "whole",
    args: { path: "a.txt" },
    recovery: "strict",
  });
});

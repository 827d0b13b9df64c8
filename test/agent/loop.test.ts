import assert from "node:assert/strict";
import { test } from "node:test";
import type { Message } from "../../src/protocol/index.ts";
import {
  budget,
  cutCall,
  recordingTools,
  runLoopWith as run,
  scriptedStream,
  turn,
  wholeCall,
} from "./fakes.ts";

test("a poisoned call is never dispatched and the model is told what happened", async () => {
  const { stream } = scriptedStream([
    () => [
      {
        type: "done",
        turn: turn({
          stopReason: "length",
          toolCalls: [cutCall("c1", "write_file", '{"path":"a","content":"abc')],
        }),
      },
    ],
    () => [{ type: "done", turn: turn({ text: "sorry, done" }) }],
  ]);
  const tools = recordingTools();
  const messages: Message[] = [];
  const { events, terminal } = await run("write a", { stream, tools, messages });
  assert.equal(tools.executed.length, 0);
  assert.ok(events.some((e) => e.type === "tool_call_refused" && e.cause === "output_limit"));
  const result = messages.find((m) => m.type === "tool_result");
  assert.ok(result && result.type === "tool_result" && result.isError);
  assert.match(result.content, /nothing was run or written/);
  assert.match(result.content, /write the file in parts/);
  assert.equal(terminal?.type, "done");
});

test("a model cut by the output limit every turn is told to change tack, then stopped within four requests", async () => {
  const cut = () => [
    {
      type: "done" as const,
      turn: turn({
        stopReason: "length" as const,
        toolCalls: [cutCall("c", "write_file", '{"path":"a","content":"x')],
      }),
    },
  ];
  const { stream, requests } = scriptedStream(Array.from({ length: 50 }, () => cut));
  const tools = recordingTools();
  const messages: Message[] = [];
  const { events, terminal } = await run("write a big file", {
    stream,
    tools,
    messages,
    budget: budget({ maxTokensFor: () => 4096, largestMaxTokensFor: () => 8192 }),
  });
  assert.ok(requests.length <= 4, `endpoint saw ${requests.length} requests`);
  assert.deepEqual(
    requests.map((r) => r.maxTokens),
    [4096, 8192, 8192, 8192],
  );
  assert.ok(
    events.some((e) => e.type === "notice" && /asking again once with 8192/.test(e.message)),
  );
  const results = messages.filter((m) => m.type === "tool_result");
  assert.match(results[1]?.type === "tool_result" ? results[1].content : "", /Change approach now/);
  assert.equal(terminal?.type, "error");
  assert.ok(terminal?.type === "error" && terminal.code === "repeated_failure");
  assert.match(terminal?.type === "error" ? terminal.message : "", /3 turns in a row/);
  assert.equal(tools.executed.length, 0);
});

test("a tool call that keeps failing validation the same way is stopped after the third time", async () => {
  const dropped = () => [
    {
      type: "done" as const,
      turn: turn({ toolCalls: [wholeCall("c", "write_file", { path: "a" })] }),
    },
  ];
  const { stream, requests } = scriptedStream(Array.from({ length: 10 }, () => dropped));
  const tools = recordingTools({
    execute: () => ({
      isError: true,
      code: "invalid_arguments",
      content: "write_file: missing required key `content`.",
    }),
  });
  const { terminal } = await run("write", { stream, tools });
  assert.equal(requests.length, 3);
  assert.ok(terminal?.type === "error" && terminal.code === "repeated_failure");
});

test("a context-length error triggers one compaction and one retry, never a loop", async () => {
  const overflow = () => [
    {
      type: "error" as const,
      error: {
        code: "context_length" as const,
        retryable: false,
        message: "too long",
        status: 400,
        contextLimit: 16384,
      },
    },
  ];
  const { stream, requests } = scriptedStream([overflow, overflow, overflow]);
  let compactions = 0;
  let corrected = 0;
  const { terminal } = await run("hi", {
    stream,
    tools: recordingTools(),
    budget: budget({
      correctWindow: (limit) => {
        corrected = limit;
      },
    }),
    compact: async (messages) => {
      compactions++;
      return messages.slice(-1);
    },
  });
  assert.equal(compactions, 1);
  assert.equal(requests.length, 2);
  assert.equal(corrected, 16384);
  assert.ok(terminal?.type === "error" && terminal.code === "context_length");
});

test("an answer cut by the output limit does not end as done", async () => {
  const { stream } = scriptedStream([
    () => [
      {
        type: "done",
        turn: turn({
          text: "Here is the first half",
          stopReason: "length",
          usage: { inputTokens: 10, outputTokens: 4096 },
        }),
      },
    ],
  ]);
  const { terminal } = await run("explain", { stream, tools: recordingTools() });
  assert.equal(terminal?.type, "error");
  assert.match(
    terminal?.type === "error" ? terminal.message : "",
    /cut off at the 4096-token output limit/,
  );
});

test("a denied permission leaves the call unexecuted and tells the model", async () => {
  const { stream } = scriptedStream([
    () => [
      {
        type: "done",
        turn: turn({ toolCalls: [wholeCall("c1", "write_file", { path: "a", content: "x" })] }),
      },
    ],
    () => [{ type: "done", turn: turn({ text: "ok" }) }],
  ]);
  const tools = recordingTools({ permission: () => ({ type: "ask", summary: "write_file a" }) });
  const messages: Message[] = [];
  const { events } = await run("w", {
    stream,
    tools,
    messages,
    approve: async () => ({ type: "deny", reason: "not now" }),
  });
  assert.equal(tools.executed.length, 0);
  assert.ok(events.some((e) => e.type === "permission_requested"));
  const result = messages.find((m) => m.type === "tool_result");
  assert.match(result?.type === "tool_result" ? result.content : "", /denied it: not now/);
});

test("every assistant tool call in the conversation gets exactly one result", async () => {
  const { stream } = scriptedStream([
    () => [
      {
        type: "done",
        turn: turn({
          toolCalls: [
            wholeCall("a", "write_file", { path: "a", content: "" }),
            cutCall("b", "write_file", '{"pa'),
          ],
        }),
      },
    ],
    () => [{ type: "done", turn: turn({ text: "done" }) }],
  ]);
  const messages: Message[] = [];
  await run("w", { stream, tools: recordingTools(), messages });
  const calls = messages.flatMap((m) =>
    m.type === "assistant" ? m.toolCalls.map((c) => c.id) : [],
  );
  const results = messages.flatMap((m) => (m.type === "tool_result" ? [m.toolCallId] : []));
  assert.deepEqual(results, calls);
});

test("an interrupt that ends a request without an attempt event still closes that request for the UI", async () => {
  const controller = new AbortController();
  const stream: import("../../src/protocol/index.ts").StreamFn = async function* () {
    yield { type: "attempt_started", attempt: 1, host: "h" };
    controller.abort();
    yield { type: "error", error: { code: "aborted", retryable: false, message: "interrupted" } };
  };
  const { events, terminal } = await run("hi", {
    stream,
    tools: recordingTools(),
    signal: controller.signal,
  });
  const started = events.filter((e) => e.type === "request_started").length;
  const ended = events.filter(
    (e) => e.type === "request_finished" || (e.type === "request_failed" && e.retryInMs === null),
  ).length;
  assert.equal(started, 1);
  assert.equal(ended, 1);
  assert.equal(terminal?.type, "aborted");
});

test("a model repeating the same call with the same result is refused, then stopped, long before the turn limit", async () => {
  const same = () => [
    {
      type: "done" as const,
      turn: turn({ toolCalls: [wholeCall("c", "list_dir", { path: "." })] }),
    },
  ];
  const { stream, requests } = scriptedStream(Array.from({ length: 50 }, () => same));
  const tools = recordingTools({ execute: () => ({ isError: false, content: "a.txt" }) });
  const messages: Message[] = [];
  const { events, terminal } = await run("look around", { stream, tools, messages });
  assert.equal(tools.executed.length, 2, "run twice, then refused");
  assert.ok(events.some((e) => e.type === "tool_call_refused" && e.cause === "repeated_call"));
  assert.ok(terminal?.type === "error" && terminal.code === "repeated_failure");
  assert.ok(requests.length <= 6, `endpoint saw ${requests.length} requests`);
});

test("the same call is run again when its result changed", async () => {
  const same = () => [
    {
      type: "done" as const,
      turn: turn({ toolCalls: [wholeCall("c", "bash", { command: "date" })] }),
    },
  ];
  const script = [
    ...Array.from({ length: 4 }, () => same),
    () => [{ type: "done" as const, turn: turn({ text: "ok" }) }],
  ];
  const { stream } = scriptedStream(script);
  let n = 0;
  const tools = recordingTools({ execute: () => ({ isError: false, content: `tick ${n++}` }) });
  const { terminal } = await run("poll", { stream, tools });
  assert.equal(tools.executed.length, 4);
  assert.equal(terminal?.type, "done");
});

test("an empty first response (no text, no tool calls) is an error, not a finished task", async () => {
  const { stream } = scriptedStream([() => [{ type: "done", turn: turn({ text: "" }) }]]);
  const { terminal } = await run("do something", { stream, tools: recordingTools() });
  assert.ok(terminal?.type === "error" && /empty/.test(terminal.message));
});

test("an empty reply after work is asked about once; empty again, the run ends as an error, not done (r12 fix-test-js)", async () => {
  const { stream, requests } = scriptedStream([
    () => [
      { type: "done", turn: turn({ toolCalls: [wholeCall("c", "bash", { command: "ls" })] }) },
    ],
    () => [{ type: "done", turn: turn({ text: "" }) }],
    () => [{ type: "done", turn: turn({ text: " " }) }],
  ]);
  const { terminal } = await run("fix the test", { stream, tools: recordingTools() });
  assert.equal(requests.length, 3, "asked once more, then no further request");
  assert.ok(
    terminal?.type === "error" && /empty again/.test(terminal.message),
    JSON.stringify(terminal),
  );
});

test("a tool call without a name is refused, never dispatched", async () => {
  const { stream } = scriptedStream([
    () => [{ type: "done", turn: turn({ toolCalls: [wholeCall("c", "", { path: "a" })] }) }],
    () => [{ type: "done", turn: turn({ text: "ok" }) }],
  ]);
  const tools = recordingTools();
  const { events } = await run("w", { stream, tools });
  assert.equal(tools.executed.length, 0);
  assert.ok(
    events.some((e) => e.type === "tool_call_refused" && /without a tool name/.test(e.reason)),
  );
});

test("a call the user keeps denying is not asked about forever: the run stops on the third denial", async () => {
  const asks = () => [
    {
      type: "done" as const,
      turn: turn({ toolCalls: [wholeCall("c", "bash", { command: "rm -rf build" })] }),
    },
  ];
  const { stream, requests } = scriptedStream(Array.from({ length: 50 }, () => asks));
  const tools = recordingTools({
    permission: () => ({ type: "deny", reason: "headless mode without --yes refuses it" }),
  });
  const { terminal } = await run("clean up", { stream, tools });
  assert.equal(tools.executed.length, 0);
  assert.equal(requests.length, 3);
  assert.ok(terminal?.type === "error" && terminal.code === "repeated_failure");
  assert.match(terminal?.type === "error" ? terminal.message : "", /was denied 3 turns in a row/);
});

test("an answer the endpoint ended abnormally (content_filter) is not a finished task", async () => {
  const { stream } = scriptedStream([
    () => [
      {
        type: "done",
        turn: turn({
          text: "Here is half",
          stopReason: "content_filter",
          rawStopReason: "content_filter",
        }),
      },
    ],
  ]);
  const { terminal } = await run("explain", { stream, tools: recordingTools() });
  assert.ok(terminal?.type === "error" && /content_filter/.test(terminal.message));
});

test("reads of one turn run side by side; a write waits its turn; results keep the call order", {
  timeout: 30_000,
}, async () => {
  const { stream } = scriptedStream([
    () => [
      {
        type: "done",
        turn: turn({
          stopReason: "tool_calls",
          toolCalls: [
            wholeCall("r1", "read_file", { path: "a" }),
            wholeCall("r2", "read_file", { path: "b" }),
            wholeCall("w1", "write_file", { path: "c", content: "x" }),
            wholeCall("r3", "read_file", { path: "c" }),
          ],
        }),
      },
    ],
    () => [{ type: "done", turn: turn({ text: "done" }) }],
  ]);
  // r1 answers only once r2 has started: run one after the other, they would never finish.
  let r2Started: () => void = () => {};
  const r2 = new Promise<void>((resolve) => {
    r2Started = resolve;
  });
  const log: string[] = [];
  const base = recordingTools();
  const tools = {
    ...base,
    readOnly: (name: string) => name === "read_file",
    execute: async (call: {
      id: string;
      name: string;
      args: Record<string, unknown>;
      turn: number;
    }) => {
      log.push(`start ${call.id}`);
      if (call.id === "r2") r2Started();
      if (call.id === "r1") await r2;
      log.push(`end ${call.id}`);
      return { isError: false, content: `result of ${call.id}` };
    },
  };
  const messages: Message[] = [];
  const { terminal } = await run("read", { stream, tools, messages });
  assert.equal(terminal?.type, "done");
  assert.deepEqual(log.slice(0, 2), ["start r1", "start r2"]);
  assert.ok(
    log.indexOf("start w1") > log.indexOf("end r1"),
    "the write starts after the reads end",
  );
  assert.ok(log.indexOf("start r3") > log.indexOf("end w1"), "a read after the write sees it");
  assert.deepEqual(
    messages
      .filter((m) => m.type === "tool_result")
      .map((m) => (m.type === "tool_result" ? m.toolCallId : "")),
    ["r1", "r2", "w1", "r3"],
  );
});

// Every refusal and stop names the fix for that tool and that cause, and a streak is one call
// failing again the same way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SUBAGENT_WORDS } from "../../src/agent/stop-words.ts";
import type { Message, ProviderEvent } from "../../src/protocol/index.ts";
import { recordingTools, runLoopWith, scriptedStream, turn, wholeCall } from "./fakes.ts";

const calling = (name: string, args: Record<string, unknown>) => (): ProviderEvent[] => [
  { type: "done", turn: turn({ toolCalls: [wholeCall("c", name, args)] }) },
];
const answering = (): ProviderEvent[] => [{ type: "done", turn: turn({ text: "done" }) }];
const PRIVATE =
  'a private address; nex does not fetch from private addresses unseen. If the user wants it, they can add "10.0.0.1" to "web": {"allowPrivateHosts": [...]} in the config';

test("three refused calls of one tool with three different arguments do not end the run: the model is trying, not looping", async () => {
  const { stream, requests } = scriptedStream([
    calling("web_fetch", { url: "http://10.0.0.1/" }),
    calling("web_fetch", { url: "http://10.0.0.2/" }),
    calling("web_fetch", { url: "http://10.0.0.3/" }),
    answering,
  ]);
  const tools = recordingTools({ permission: () => ({ type: "deny", reason: PRIVATE }) });
  const { terminal } = await runLoopWith("fetch", { stream, tools });
  assert.equal(requests.length, 4);
  assert.equal(terminal?.type, "done");
});

test("the same call refused three times stops the run with the fix its refusal names, not --yes when the refusal was a setting's", async () => {
  const { stream } = scriptedStream(
    Array.from({ length: 5 }, () => calling("web_fetch", { url: "http://10.0.0.1/" })),
  );
  const tools = recordingTools({ permission: () => ({ type: "deny", reason: PRIVATE }) });
  const { terminal } = await runLoopWith("fetch", { stream, tools });
  assert.ok(terminal?.type === "error" && terminal.code === "repeated_failure");
  assert.match(terminal.message, /allowPrivateHosts/);
  assert.match(terminal.message, /change that rule or setting/);
  assert.doesNotMatch(terminal.message, /--yes|--mode/);
});

test("after the second invalid call of read_file the advice is about read_file's parameters, never write_file in parts", async () => {
  const { stream } = scriptedStream([
    calling("read_file", { file: "a.txt" }),
    calling("read_file", { file: "a.txt" }),
    answering,
  ]);
  const tools = recordingTools({
    execute: () => ({
      isError: true,
      code: "invalid_arguments",
      content: "read_file: unknown parameter `file`; it takes `path`.",
    }),
  });
  const messages: Message[] = [];
  await runLoopWith("read", { stream, tools, messages });
  const results = messages.filter((m) => m.type === "tool_result");
  const second = results[1]?.type === "tool_result" ? results[1].content : "";
  assert.match(second, /failure 2 in a row/);
  assert.match(second, /call read_file with only the parameters its description lists/);
  assert.doesNotMatch(second, /write_file|part/);
});

test("a headless refusal with nobody to ask is not the user's denial, and its stop says how to allow it", async () => {
  const { stream } = scriptedStream(
    Array.from({ length: 4 }, () => calling("bash", { command: "make" })),
  );
  const tools = recordingTools({ permission: () => ({ type: "ask", summary: "bash make" }) });
  const { events, terminal } = await runLoopWith("build", {
    stream,
    tools,
    approve: async () => ({
      type: "deny",
      unasked: true,
      reason: "headless mode without --yes has nobody to ask; rerun with --yes",
    }),
  });
  const refusals = events.filter((e) => e.type === "tool_call_refused");
  assert.equal(refusals.length, 3);
  for (const refusal of refusals)
    assert.doesNotMatch(refusal.type === "tool_call_refused" ? refusal.reason : "", /user denied/);
  assert.ok(terminal?.type === "error");
  assert.match(terminal.message, /Rerun with --yes/);
});

test("a person's denial says the user denied it, and its stop says to approve it when asked", async () => {
  const { stream } = scriptedStream(
    Array.from({ length: 4 }, () => calling("bash", { command: "make" })),
  );
  const tools = recordingTools({ permission: () => ({ type: "ask", summary: "bash make" }) });
  const { events, terminal } = await runLoopWith("build", {
    stream,
    tools,
    approve: async () => ({ type: "deny" }),
  });
  const refusal = events.find((e) => e.type === "tool_call_refused");
  assert.match(refusal?.type === "tool_call_refused" ? refusal.reason : "", /the user denied it/);
  assert.ok(terminal?.type === "error");
  assert.match(terminal.message, /Approve it when nex asks/);
  assert.doesNotMatch(terminal.message, /--yes/);
});

test("a sub-agent's stops never cite --max-turns or resuming: its reader is the parent model", async () => {
  const looping = Array.from({ length: 5 }, () => calling("bash", { command: "make" }));
  const limited = await runLoopWith("go", {
    stream: scriptedStream(looping).stream,
    tools: recordingTools({ execute: (call) => ({ isError: false, content: `${call.id}` }) }),
    maxTurns: 2,
    words: SUBAGENT_WORDS,
  });
  assert.ok(limited.terminal?.type === "error" && limited.terminal.code === "turn_limit");
  assert.match(limited.terminal.message, /sub-agent stopped after 2 turns/);
  const denied = await runLoopWith("go", {
    stream: scriptedStream(looping).stream,
    tools: recordingTools({ permission: () => ({ type: "deny", reason: "a rule refuses it" }) }),
    words: SUBAGENT_WORDS,
  });
  assert.ok(denied.terminal?.type === "error" && denied.terminal.code === "repeated_failure");
  for (const message of [limited.terminal.message, denied.terminal.message]) {
    assert.doesNotMatch(message, /--max-turns|[Rr]esume|--yes/);
  }
});

test("a run stopped by its own time limit is not 'interrupted by the user'", async () => {
  const { stream } = scriptedStream([answering]);
  const { terminal } = await runLoopWith("go", {
    stream,
    tools: recordingTools(),
    signal: AbortSignal.abort(new DOMException("time is up", "TimeoutError")),
  });
  assert.ok(terminal?.type === "aborted");
  assert.doesNotMatch(terminal.reason, /user/);
  assert.match(terminal.reason, /time limit/);
});

test("a read_file call invalid three times stops with advice about the model and the tool, not about smaller changes", async () => {
  const { stream } = scriptedStream(
    Array.from({ length: 4 }, () => calling("read_file", { file: "a.txt" })),
  );
  const tools = recordingTools({
    execute: () => ({
      isError: true,
      code: "invalid_arguments",
      content: "read_file: unknown parameter `file`; it takes `path`.",
    }),
  });
  const messages: Message[] = [];
  const { terminal } = await runLoopWith("read", { stream, tools, messages });
  assert.ok(terminal?.type === "error" && terminal.code === "repeated_failure");
  assert.match(terminal.message, /read_file call was sent with invalid arguments 3 turns in a row/);
  // The last refusal is the one that stopped the run, and says so: a resumed session shows it.
  const last = messages.filter((m) => m.type === "tool_result").at(-1);
  assert.match(
    last?.type === "tool_result" ? last.content : "",
    /failure 3 in a row of the same kind; nex stops this run here/,
  );
  assert.match(terminal.message, /follows the tool's parameters/);
  assert.doesNotMatch(terminal.message, /smaller steps|write_file|parts/);
});

test("a sub-agent's deadline shows as its own, in the line a UI prints for it", async () => {
  const { describeChildEvent } = await import("../../src/runtime/session/index.ts");
  const { abortReason } = await import("../../src/agent/stop-words.ts");
  const deadline = AbortSignal.any([
    new AbortController().signal,
    AbortSignal.abort(new DOMException("late", "TimeoutError")),
  ]);
  const line = describeChildEvent({
    type: "aborted",
    reason: abortReason(deadline),
    agent: { id: "agent-2", kind: "map-item", parentCallId: "c1" },
  });
  assert.match(line ?? "", /did not finish \(its time limit ran out\)/);
  assert.doesNotMatch(line ?? "", /user/);
});

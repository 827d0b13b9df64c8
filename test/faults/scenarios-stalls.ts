// Endpoints that stop talking: a server that never answers, and streams that go silent mid-answer.
// The timeouts are shortened through NEX_FIRST_BYTE_TIMEOUT / NEX_IDLE_TIMEOUT (the same settings a
// user with a slow CPU server raises), so each stall costs the suite seconds, not minutes. Only the
// timeout under test is short: the other one also times the retry's answer, which a loaded machine
// may be slow to send. A stall that no timeout ended would hang: the suite's test timeout catches it.
import {
  anthropicText,
  anthropicToolUse,
  hang,
  openaiText,
  openaiToolCall,
  type Script,
} from "../support/stub-scripts.ts";
import { absent, exitCode, type FaultScenario, requests, stderrSays, told } from "./scenario.ts";

const shortFirstByte = { NEX_FIRST_BYTE_TIMEOUT: "4", NEX_IDLE_TIMEOUT: "30" };
const shortIdle = { NEX_FIRST_BYTE_TIMEOUT: "30", NEX_IDLE_TIMEOUT: "4" };
/** A server that answers at once and then sends nothing but keep-alive comments. */
const onlyKeepAlives: Script = {
  type: "stream",
  status: 200,
  headers: { "content-type": "text/event-stream" },
  parts: Array.from({ length: 150 }, () => ({ data: ": keep-alive\n\n", delayMs: 200 })),
  end: "hang",
};

const report = "# Report\n\nAll twelve checks passed.\n".repeat(8);

export const stallScenarios: FaultScenario[] = [
  {
    name: "a server that accepts the request and never answers, then answers",
    wire: "openai",
    expect: "the first-byte timeout ends the silent attempt; one retry succeeds",
    env: shortFirstByte,
    scripts: [hang(), openaiText("Done.")],
    checks: [requests(2), exitCode(0)],
  },
  {
    name: "a stream that goes silent in the middle of a write's arguments",
    wire: "openai",
    expect: "the idle timeout ends it; the half call is never run; no file",
    env: shortIdle,
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "report.md", content: report },
        cutAt: 120,
        end: "hang",
      }),
    ],
    always: openaiText("I will stop here."),
    checks: [absent("report.md"), requests(2), told(/stalled|no data|terminator|stop reason/i)],
  },
  {
    name: "a stream that goes silent after a whole call, before its terminator",
    wire: "openai",
    expect:
      "a call without its finish reason and terminator is not run, even though its JSON is whole",
    env: shortIdle,
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "report.md", content: report },
        finishReason: null,
        includeDone: false,
        usage: null,
        end: "hang",
      }),
    ],
    always: openaiText("I will stop here."),
    checks: [absent("report.md"), requests(2), told(/stalled|no data|terminator|stop reason/i)],
  },
  {
    name: "a stream that goes silent in the middle of a tool_use",
    wire: "anthropic",
    expect: "the idle timeout ends it; the half call is never run; no file",
    env: shortIdle,
    scripts: [
      anthropicToolUse({
        name: "write_file",
        input: { path: "report.md", content: report },
        cutAt: 120,
        end: "hang",
      }),
    ],
    always: anthropicText("I will stop here."),
    checks: [absent("report.md"), requests(2), told(/stalled|no data|terminator|stop reason/i)],
  },
  {
    name: "a text answer that goes silent half-way",
    wire: "openai",
    expect: "not reported as a finished task: the stall is named and the exit is non-zero",
    env: shortIdle,
    scripts: [
      openaiText("The summary is: first, ", {
        finishReason: null,
        includeDone: false,
        usage: null,
        end: "hang",
      }),
    ],
    checks: [requests(1), exitCode(1), stderrSays(/no data|silent|stalled|timed out|timeout/i)],
  },
  {
    name: "a server that sends only keep-alive comments, forever",
    wire: "openai",
    expect: "comments are not progress: the first-byte timeout ends the attempt; a retry succeeds",
    env: shortFirstByte,
    scripts: [onlyKeepAlives, openaiText("Done.")],
    checks: [requests(2), exitCode(0)],
  },
];

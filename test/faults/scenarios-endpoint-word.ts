// The endpoint's word is not trusted blindly: a stream that carries no content is not progress, a
// response is bounded by the max_tokens nex asked for whatever the server says about it, and a usage
// report no request could have produced does not drive the budget. Stalls use NEX_IDLE_TIMEOUT=2.
import {
  anthropicText,
  openaiText,
  openaiToolCall,
  type Script,
  sse,
} from "../support/stub-scripts.ts";
import {
  absent,
  exitCode,
  exitNonZero,
  type FaultScenario,
  holds,
  maxTokensOf,
  requests,
  stderrSays,
  told,
} from "./scenario.ts";

function openaiChunk(delta: unknown): string {
  return sse({
    id: "chatcmpl-stub",
    object: "chat.completion.chunk",
    created: 0,
    model: "stub-model",
    choices: [{ index: 0, delta, finish_reason: null }],
  });
}

/** An SSE stream that answers at once, then repeats `part` every 100 ms for two minutes, then hangs. */
function forever(first: string, part: string): Script {
  return {
    type: "stream",
    status: 200,
    headers: { "content-type": "text/event-stream" },
    parts: [first, ...Array.from({ length: 1200 }, () => ({ data: part, delayMs: 100 }))],
    end: "hang",
  };
}

const roleOnly = openaiChunk({ role: "assistant", content: "" });
const emptyDeltas = forever(roleOnly, openaiChunk({ content: "" }) + openaiChunk({}));
const anthropicPings = forever(
  sse(
    {
      type: "message_start",
      message: {
        id: "msg_stub",
        type: "message",
        role: "assistant",
        content: [],
        usage: { input_tokens: 10, output_tokens: 1 },
      },
    },
    "message_start",
  ),
  sse({ type: "ping" }, "ping"),
);

/** Reasoning without end, as fast as the socket takes it: ~3 MB, then the stream stays open. */
const endlessReasoning: Script = {
  type: "stream",
  status: 200,
  headers: { "content-type": "text/event-stream" },
  parts: [
    roleOnly,
    ...Array.from({ length: 30_000 }, (_, i) =>
      openaiChunk({ reasoning_content: `Let me reconsider step ${i} of the plan once more. ` }),
    ),
  ],
  delayMs: 0,
  end: "hang",
};

const bigWrite = "A line the model was never allowed to write this long.\n".repeat(30_000);

const absurdUsage = { input: 1_000_000_000, output: 12 };

export const endpointWordScenarios: FaultScenario[] = [
  {
    name: "a stream of empty deltas, forever",
    wire: "openai",
    expect:
      "empty and role-only deltas are not progress: the idle timeout ends the attempt, a retry succeeds",
    // Only the idle timeout is under test: a loaded machine may be slow to the retry's first byte.
    env: { NEX_FIRST_BYTE_TIMEOUT: "30", NEX_IDLE_TIMEOUT: "3" },
    scripts: [emptyDeltas, openaiText("Done.")],
    checks: [requests(2), exitCode(0)],
  },
  {
    name: "an Anthropic stream of pings after message_start, forever",
    wire: "anthropic",
    expect: "pings are not progress: the idle timeout ends the attempt, a retry succeeds",
    // Only the idle timeout is under test: a loaded machine may be slow to the retry's first byte.
    env: { NEX_FIRST_BYTE_TIMEOUT: "30", NEX_IDLE_TIMEOUT: "3" },
    scripts: [anthropicPings, anthropicText("Done.")],
    checks: [requests(2), exitCode(0)],
  },
  {
    name: "a reasoning-only stream that never ends",
    wire: "openai",
    expect:
      "reasoning counts as output: cut once far past max_tokens, never asked again, the run ends saying why",
    // Only the output meter is under test: on a loaded machine a short idle timeout could end the
    // stream first (a fresh-clone CI run beside two CPU burners saw it).
    env: { NEX_FIRST_BYTE_TIMEOUT: "30", NEX_IDLE_TIMEOUT: "30" },
    scripts: [endlessReasoning],
    always: openaiText("unused"),
    checks: [requests(1), exitNonZero, stderrSays(/did not stop at the \d+-token output limit/)],
  },
  {
    name: "a server that ignores max_tokens and streams a 1.6 MB write with a clean finish",
    wire: "openai",
    expect:
      "output far past max_tokens is cut and its call never runs, whatever the finish and usage say",
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "huge.txt", content: bigWrite } }),
    ],
    always: openaiText("I will write it in smaller parts."),
    checks: [absent("huge.txt"), told(/far beyond the max_tokens/), exitCode(0)],
  },
  {
    name: "usage reports of a billion prompt tokens",
    wire: "openai",
    expect:
      "a report larger than the window is not trusted: no compaction, one request per turn, the user is told once",
    files: { "notes.txt": "the build is green\n" },
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "notes.txt" }, usage: absurdUsage }),
      openaiToolCall({ name: "read_file", args: { path: "notes.txt" }, usage: absurdUsage }),
      openaiText("The build is green.", { usage: absurdUsage }),
    ],
    always: openaiText("unused"),
    checks: [
      requests(3),
      exitCode(0),
      stderrSays(/reported 1,000,000,000 prompt tokens, more than the whole [\d,]+-token window/),
      holds("every request asked for a real answer (max_tokens ≥ 1024)", (o) =>
        o.requests.every((r) => maxTokensOf(r) >= 1024),
      ),
      holds(
        "the notice is given once",
        (o) => o.stderr.split("1,000,000,000 prompt tokens").length === 2,
      ),
    ],
  },
];

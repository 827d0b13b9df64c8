// The faults of issue 6 that apply to the Anthropic Messages wire format, and its own failures
// (overloaded_error, 529, an error event mid-stream).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  anthropicStreamError,
  anthropicText,
  anthropicToolUse,
  type Script,
  sse,
  status,
} from "../support/stub-scripts.ts";
import { linkOut, rustMain, seedJournal, settingsPy, withLimits } from "./fixtures.ts";
import {
  absent,
  endedWithin,
  exitCode,
  type FaultScenario,
  fileIs,
  gapsAtLeast,
  neverPrinted,
  requests,
  requestsAtMost,
  stderrSays,
  told,
} from "./scenario.ts";

const wire = "anthropic";
const KEY = "sk-ant-fault-suite-NEVER-PRINTED";

const overloaded = (code: number): Script =>
  status(code, {
    body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  });

export const anthropicScenarios: FaultScenario[] = [
  {
    name: "write cut by max_tokens",
    wire,
    expect: "no file; the model is told nothing was written",
    scripts: [
      anthropicToolUse({
        name: "write_file",
        input: { path: "src/main.rs", content: rustMain },
        cutAt: 700,
        finishReason: "max_tokens",
        includeDone: true,
        usage: { input: 100, output: 4096 },
      }),
      anthropicText("I could not write it."),
    ],
    checks: [absent("src"), told(/nothing was run or written/, -1), exitCode(0), requestsAtMost(3)],
  },
  {
    name: "write cut by a dropped connection",
    wire,
    expect: "no file; the model is told the stream dropped",
    scripts: [
      anthropicToolUse({
        name: "write_file",
        input: { path: "src/main.rs", content: rustMain },
        cutAt: 700,
        end: "destroy",
      }),
      anthropicText("Nothing written."),
    ],
    checks: [absent("src"), told(/nothing was run or written/), exitCode(0), requests(2)],
  },
  {
    name: "write without content (seed 001)",
    wire,
    expect: "no file; the model is told `content` is missing",
    scripts: [
      anthropicToolUse({ name: "write_file", input: { path: "notes.md" } }),
      anthropicText("Sorry."),
    ],
    checks: [absent("notes.md"), told(/content/), exitCode(0), requests(2)],
  },
  {
    name: "write with content of the wrong type",
    wire,
    expect: "no file; the model is told content must be a string",
    scripts: [
      anthropicToolUse({ name: "write_file", input: { path: "n.txt", content: 42 } }),
      anthropicText("Sorry."),
    ],
    checks: [absent("n.txt"), told(/string/), exitCode(0), requests(2)],
  },
  {
    name: "overwrite of an unread file (seed 004)",
    wire,
    expect: "the file is unchanged byte for byte; the model is told to read it first",
    files: { "settings.py": settingsPy },
    scripts: [
      anthropicToolUse({
        name: "write_file",
        input: { path: "settings.py", content: "DEBUG = False\n" },
      }),
      anthropicText("I will read it first."),
    ],
    checks: [fileIs("settings.py", settingsPy), told(/read_file/), exitCode(0), requests(2)],
  },
  {
    name: "edit of a file changed on disk since it was read",
    wire,
    expect: "the other writer's change is kept; the model is told to read again",
    files: { "app.js": "const port = 8080;\n" },
    scripts: [anthropicToolUse({ name: "read_file", input: { path: "app.js" } })],
    handler: (_request, index, box) => {
      if (index !== 1) return anthropicText("I will read it again.");
      writeFileSync(join(box.workspace, "app.js"), "const port = 8081;\n");
      return anthropicToolUse({
        name: "edit_file",
        input: { path: "app.js", old_string: "const port", new_string: "let port" },
      });
    },
    checks: [
      fileIs("app.js", "const port = 8081;\n"),
      told(/modified since you read it/, 2),
      requests(3),
    ],
  },
  {
    name: "400 storm",
    wire,
    expect: "exactly one request; the server's message surfaced; non-zero exit",
    always: status(400, {
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "messages.1: roles must alternate" },
      },
    }),
    checks: [requests(1), exitCode(1), stderrSays(/roles must alternate/)],
  },
  {
    name: "429 with Retry-After in seconds",
    wire,
    expect: "waits the second asked, then succeeds",
    scripts: [status(429, { headers: { "retry-after": "1" } }), anthropicText("Done.")],
    checks: [requests(2), gapsAtLeast(900), exitCode(0)],
  },
  {
    name: "429 with Retry-After: 120",
    wire,
    expect: "gives up at once with the wait named",
    always: status(429, { headers: { "retry-after": "120" } }),
    checks: [requests(1), exitCode(1), stderrSays(/120/), endedWithin(100_000)],
  },
  {
    name: "529 overloaded_error, then success",
    wire,
    expect: "retries after a back-off and succeeds",
    scripts: [overloaded(529), anthropicText("Done.")],
    checks: [requests(2), gapsAtLeast(700), exitCode(0)],
  },
  {
    name: "529 overloaded_error forever",
    wire,
    expect: "bounded retries (1 + 5), then a clear failure",
    always: { ...overloaded(529), headers: { "retry-after": "0" } } as Script,
    checks: [requests(6), exitCode(1), stderrSays(/overloaded|Overloaded|529/)],
  },
  {
    name: "overloaded error event before any output",
    wire,
    expect: "retried like a 529 (nothing shown yet), then succeeds",
    scripts: [
      {
        type: "stream",
        parts: [anthropicStreamError("overloaded_error", "Overloaded")],
        end: "close",
      },
      anthropicText("Done."),
    ],
    checks: [requestsAtMost(2), exitCode(0)],
  },
  {
    name: "error event mid-tool-call",
    wire,
    expect: "the half-streamed call is not run; no file; no silent re-request of the same turn",
    handler: (_request, index) => {
      if (index > 0) return anthropicText("Stopping.");
      const cut = anthropicToolUse({
        name: "write_file",
        input: { path: "half.txt", content: "y".repeat(300) },
        cutAt: 120,
      });
      if (cut.type !== "stream") return cut;
      return { ...cut, parts: [...cut.parts, anthropicStreamError("api_error", "Internal error")] };
    },
    checks: [
      absent("half.txt"),
      told(/nothing was run or written/),
      stderrSays(/Internal error/),
      requests(2),
      exitCode(0),
    ],
  },
  {
    name: "401 invalid key",
    wire,
    expect: "one request, exit 3, the key env var named, the key never printed",
    env: { ANTHROPIC_API_KEY: KEY },
    always: status(401, {
      body: {
        type: "error",
        error: { type: "authentication_error", message: "invalid x-api-key" },
      },
    }),
    checks: [requests(1), exitCode(3), stderrSays(/ANTHROPIC_API_KEY/), neverPrinted(KEY)],
  },
  {
    name: "write escaping the workspace through ..",
    wire,
    expect: "nothing written outside; the model is told why",
    scripts: [
      anthropicToolUse({ name: "write_file", input: { path: "../escaped.txt", content: "x" } }),
      anthropicText("ok"),
    ],
    checks: [absent("../escaped.txt"), told(/outside the workspace/), exitCode(0)],
  },
  {
    name: "write escaping through a symlinked file",
    wire,
    expect: "the file outside keeps its bytes",
    setup: linkOut,
    scripts: [
      anthropicToolUse({ name: "write_file", input: { path: "link-file.txt", content: "gone" } }),
      anthropicText("ok"),
    ],
    checks: [fileIs("../outside/precious.txt", "precious\n"), told(/outside the workspace/)],
  },
  {
    name: "journal too large for the window (seed 002)",
    wire,
    command: "resume",
    expect: "resume truncates to fit; one request; no 400 loop",
    setup: async (box) => {
      withLimits(box, wire, { contextWindow: 8192 });
      await seedJournal(box, wire, 500);
    },
    scripts: [anthropicText("Continuing.")],
    checks: [requests(1), exitCode(0), stderrSays(/Journal had 500 messages/)],
  },
  {
    name: "stream without message_stop",
    wire,
    expect: "a complete-looking call without its terminator is not run",
    scripts: [
      anthropicToolUse({
        name: "write_file",
        input: { path: "a.txt", content: "complete?" },
        includeDone: false,
      }),
      anthropicText("ok"),
    ],
    checks: [absent("a.txt"), told(/nothing was run or written/), exitCode(0)],
  },
  {
    name: "ping events and an unknown event type",
    wire,
    expect: "events nex does not know are ignored; the whole call runs",
    handler: (_request, index) => {
      if (index > 0) return anthropicText("Done.");
      const whole = anthropicToolUse({
        name: "write_file",
        input: { path: "a.txt", content: "whole\n" },
      });
      if (whole.type !== "stream") return whole;
      const extra = [sse({ type: "ping" }, "ping"), sse({ type: "future_thing" }, "future_thing")];
      return { ...whole, parts: [whole.parts[0] ?? "", ...extra, ...whole.parts.slice(1)] };
    },
    checks: [fileIs("a.txt", "whole\n"), exitCode(0), requests(2)],
  },
  {
    name: "overloaded error event after text started",
    wire,
    expect: "not retried silently (text was shown): one request, the error surfaced, failure exit",
    handler: () => {
      const text = anthropicText("I will now edit the files one by one", { includeDone: false });
      if (text.type !== "stream") return text;
      const parts = text.parts.filter((part) => !String(part).includes("message_delta"));
      return { ...text, parts: [...parts, anthropicStreamError("overloaded_error", "Overloaded")] };
    },
    checks: [requests(1), exitCode(1), stderrSays(/Overloaded|overloaded/)],
  },
  {
    name: "a whole tool_use with stop_reason refusal",
    wire,
    expect: "an abnormal stop: the call is not run",
    scripts: [
      anthropicToolUse({
        name: "write_file",
        input: { path: "a.txt", content: "x" },
        finishReason: "refusal",
      }),
      anthropicText("ok"),
    ],
    checks: [absent("a.txt"), told(/nothing was run or written/)],
  },
];

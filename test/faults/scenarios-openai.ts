// The faults issue 6 names, through the OpenAI wire format (Chat Completions, streamed).
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { openaiText, openaiToolCall, status } from "../support/stub-scripts.ts";
import {
  contextLengthError,
  linkOut,
  rustMain,
  seedJournal,
  settingsPy,
  withLimits,
} from "./fixtures.ts";
import {
  absent,
  endedWithin,
  exitCode,
  exitNonZero,
  type FaultScenario,
  fileIs,
  gapsAtLeast,
  holds,
  maxTokensOf,
  neverTold,
  requests,
  requestsAtMost,
  stderrSays,
  told,
  toolResults,
  workspaceHolds,
} from "./scenario.ts";

const wire = "openai";
const summaryOrTask = (request: { body: unknown }) =>
  ((request.body as { tools?: unknown[] }).tools?.length ?? 0) > 0;

export const openaiScenarios: FaultScenario[] = [
  {
    name: "write cut by the output limit (length)",
    wire,
    expect: "no file; the model is told nothing was written; the run goes on",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "src/main.rs", content: rustMain },
        cutAt: 700,
        finishReason: "length",
        includeDone: true,
        usage: { input: 100, output: 4096 },
      }),
      openaiText("I could not write it."),
    ],
    checks: [
      absent("src"),
      told(/nothing was run or written/, -1),
      neverTold(/Wrote|wrote \d/),
      exitCode(0),
      requestsAtMost(3),
    ],
  },
  {
    name: "write cut by a dropped connection",
    wire,
    expect: "no file; the model is told the stream dropped; the run goes on",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "src/main.rs", content: rustMain },
        cutAt: 700,
        end: "destroy",
      }),
      openaiText("The connection dropped; nothing written."),
    ],
    checks: [absent("src"), told(/nothing was run or written/), exitCode(0), requests(2)],
  },
  {
    name: "write without content (seed 001)",
    wire,
    expect: "no file, not even an empty one; the model is told `content` is missing",
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "notes.md" } }),
      openaiText("Sorry."),
    ],
    checks: [absent("notes.md"), told(/content/), exitCode(0), requests(2)],
  },
  {
    name: "write with content of the wrong type",
    wire,
    expect: "no file; the model is told content must be a string (no coercion)",
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "n.json", content: { a: 1 } } }),
      openaiText("Sorry."),
    ],
    checks: [absent("n.json"), told(/content/), told(/string/), exitCode(0), requests(2)],
  },
  {
    name: "overwrite of an unread file (seed 004)",
    wire,
    expect: "the file is unchanged byte for byte; the model is told to read it first",
    files: { "settings.py": settingsPy },
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "settings.py", content: "DEBUG = False\n" },
      }),
      openaiText("I will read it first."),
    ],
    checks: [fileIs("settings.py", settingsPy), told(/read_file/), exitCode(0), requests(2)],
  },
  {
    name: "edit of a file changed on disk since it was read",
    wire,
    expect: "the other writer's change is kept; the model is told to read the file again",
    files: { "app.js": "const port = 8080;\nconst host = 'localhost';\n" },
    scripts: [openaiToolCall({ name: "read_file", args: { path: "app.js" } })],
    // The user's editor saves the file while the model composes its edit.
    handler: (_request, index, box) => {
      if (index !== 1) return openaiText("I will read it again.");
      writeFileSync(join(box.workspace, "app.js"), "const port = 8080;\nconst host = '::';\n");
      return openaiToolCall({
        name: "edit_file",
        args: { path: "app.js", old_string: "8080", new_string: "9090" },
      });
    },
    checks: [
      fileIs("app.js", "const port = 8080;\nconst host = '::';\n"),
      told(/modified since you read it/, 2),
      exitCode(0),
      requests(3),
    ],
  },
  {
    name: "400 storm",
    wire,
    expect: "exactly one request; the server's message surfaced; non-zero exit",
    always: status(400, { body: { error: { message: "messages[3].content: expected a string" } } }),
    checks: [requests(1), exitCode(1), stderrSays(/messages\[3\]\.content: expected a string/)],
  },
  {
    name: "429 with Retry-After in seconds",
    wire,
    expect: "waits the second asked, then succeeds",
    scripts: [status(429, { headers: { "retry-after": "1" } }), openaiText("Done.")],
    checks: [requests(2), gapsAtLeast(900), exitCode(0), stderrSays(/429/)],
  },
  {
    name: "429 with Retry-After as an HTTP date",
    wire,
    expect: "waits until the date, then succeeds",
    handler: (_request, index) =>
      index === 0
        ? status(429, { headers: { "retry-after": new Date(Date.now() + 2000).toUTCString() } })
        : openaiText("Done."),
    checks: [requests(2), gapsAtLeast(900), exitCode(0)],
  },
  {
    name: "429 with Retry-After: 120",
    wire,
    expect: "gives up at once with the wait named: one request, no 2-minute sleep",
    always: status(429, { headers: { "retry-after": "120" } }),
    checks: [requests(1), exitCode(1), stderrSays(/120/), endedWithin(100_000)],
  },
  {
    name: "a run of 5xx",
    wire,
    expect:
      "1 request + 5 retries, never in a burst (even Retry-After: 0 waits 0.5 s), then a clear failure",
    always: status(503, { headers: { "retry-after": "0" } }),
    checks: [
      requests(6),
      gapsAtLeast(450),
      exitCode(1),
      stderrSays(/503/),
      stderrSays(/gave up after 5 retries/),
    ],
  },
  {
    name: "5xx then success",
    wire,
    expect: "backs off (≈1 s, ≈2 s) and succeeds on the third request",
    scripts: [status(502), status(500), openaiText("Done.")],
    checks: [requests(3), gapsAtLeast(700), exitCode(0)],
  },
  {
    name: "context-length error on every request",
    wire,
    command: "resume",
    expect: "compacts once, retries once, then stops: two task requests, never a loop",
    setup: async (box) => {
      withLimits(box, wire, { contextWindow: 32768 });
      await seedJournal(box, wire, 60);
    },
    handler: (request) =>
      summaryOrTask(request) ? contextLengthError : openaiText("Summary: files were written."),
    checks: [
      holds(
        "expected exactly 2 task requests",
        (o) => o.requests.filter(summaryOrTask).length === 2,
      ),
      holds("expected a summary request", (o) => o.requests.some((r) => !summaryOrTask(r))),
      requestsAtMost(8),
      exitCode(1),
      stderrSays(/Compacted/),
    ],
  },
  {
    name: "context-length error once, then fits",
    wire,
    command: "resume",
    expect: "compacts once and the retried request succeeds",
    setup: async (box) => {
      withLimits(box, wire, { contextWindow: 32768 });
      await seedJournal(box, wire, 60);
    },
    handler: (request, index) => {
      if (!summaryOrTask(request)) return openaiText("Summary: files were written.");
      return index === 0 ? contextLengthError : openaiText("Carried on.");
    },
    checks: [
      holds("expected 2 task requests", (o) => o.requests.filter(summaryOrTask).length === 2),
      exitCode(0),
      stderrSays(/Compacted/),
    ],
  },
  {
    name: "journal too large for the window (seed 002)",
    wire,
    command: "resume",
    expect: "resume keeps the newest messages that fit; one request that fits; no 400 loop",
    setup: async (box) => {
      withLimits(box, wire, { contextWindow: 8192 });
      await seedJournal(box, wire, 500);
    },
    scripts: [openaiText("Continuing.")],
    checks: [
      requests(1),
      exitCode(0),
      stderrSays(/Journal had 500 messages/),
      holds("request too large for an 8k window", (o) => {
        const request = o.requests[0];
        // Counted by a tokenizer other than nex's own (o200k, not cl100k) over the whole body, JSON
        // syntax included: an overcount, so the margin is small.
        return tokensIn(request?.rawBody ?? "") + maxTokensOf(request) <= 8192 * 1.1;
      }),
    ],
  },
  {
    name: "oversized journal and an endpoint that 400s anyway",
    wire,
    command: "resume",
    expect: "one request, the 400 surfaced, non-zero exit: never a loop",
    setup: async (box) => {
      withLimits(box, wire, { contextWindow: 8192 });
      await seedJournal(box, wire, 500);
    },
    always: status(400, { body: { error: { message: "bad request" } } }),
    checks: [requests(1), exitNonZero, stderrSays(/bad request/)],
  },
  {
    name: "write escaping the workspace through ..",
    wire,
    expect: "nothing written outside; the model is told the path is outside the workspace",
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "../escaped.txt", content: "x" } }),
      openaiText("ok"),
    ],
    checks: [absent("../escaped.txt"), told(/outside the workspace/), exitCode(0)],
  },
  {
    name: "write escaping through a symlinked directory",
    wire,
    expect: "nothing written in the linked directory outside",
    setup: linkOut,
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "link-dir/evil.txt", content: "x" } }),
      openaiText("ok"),
    ],
    checks: [
      absent("../outside/evil.txt"),
      fileIs("../outside/precious.txt", "precious\n"),
      told(/outside the workspace/),
      exitCode(0),
    ],
  },
  {
    name: "edit through a symlinked file",
    wire,
    expect: "the file outside keeps its bytes",
    setup: linkOut,
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "link-file.txt" } }),
      openaiToolCall({
        name: "edit_file",
        args: { path: "link-file.txt", old_string: "precious", new_string: "gone" },
      }),
      openaiText("ok"),
    ],
    checks: [
      fileIs("../outside/precious.txt", "precious\n"),
      neverTold(/^precious/),
      told(/outside the workspace/, 2),
      exitCode(0),
    ],
  },
  {
    name: "bash cut mid-command",
    wire,
    expect: "the partial command never runs; build/ keeps its file",
    files: { "build/keep.txt": "keep\n" },
    scripts: [
      openaiToolCall({
        name: "bash",
        args: { command: "rm -rf build/tmp && echo cleaned up the temporary files" },
        cutAt: 24,
        finishReason: "length",
        includeDone: true,
      }),
      openaiText("ok"),
    ],
    checks: [
      fileIs("build/keep.txt", "keep\n"),
      told(/nothing was run or written/, -1),
      workspaceHolds("build"),
    ],
  },
  {
    name: "model sees its own refusal, not a success",
    wire,
    expect: "a refused call's tool result never claims a write",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "a.txt", content: "x".repeat(400) },
        cutAt: 100,
        end: "destroy",
      }),
      openaiText("ok"),
    ],
    checks: [
      absent("a.txt"),
      requests(2),
      told(/nothing was run or written|not run|refused/i),
      holds("a tool result claims success", (o) =>
        toolResults(o.requests[1]).every((text) => !/^Wrote|success/i.test(text)),
      ),
    ],
  },
];

/** Tokens of `text` by o200k_base (independent of the tokenizer nex estimates with). */
function tokensIn(text: string): number {
  const require = createRequire(import.meta.url);
  const lite = require("js-tiktoken/lite") as typeof import("js-tiktoken/lite");
  const ranks = require("js-tiktoken/ranks/o200k_base");
  return new lite.Tiktoken(ranks.default ?? ranks).encode(text).length;
}

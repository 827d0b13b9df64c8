// Edge cases of the tool-call wire and the workspace that no report named yet: a model or server
// doing something odd but plausible. nex must stay safe in each.
import { existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  openaiText,
  openaiToolCall,
  openaiToolCalls,
  type Script,
  sse,
  status,
} from "../support/stub-scripts.ts";
import { outside } from "./fixtures.ts";
import {
  absent,
  exitCode,
  type FaultScenario,
  fileIs,
  holds,
  neverPrinted,
  requests,
  stderrSays,
  told,
  toolResults,
  workspaceHolds,
} from "./scenario.ts";

const wire = "openai";
const KEY = "sk-fault-suite-edge-SECRET-7788";

function chunk(delta: unknown, finishReason: string | null = null): string {
  return sse({ id: "c", choices: [{ index: 0, delta, finish_reason: finishReason }] });
}

/** Two calls streamed under the same index with different ids (a known llama.cpp/Ollama habit). */
const sameIndexTwoCalls: Script = {
  type: "stream",
  parts: [
    chunk({ role: "assistant", content: null }),
    chunk({
      tool_calls: [
        {
          index: 0,
          id: "a",
          type: "function",
          function: { name: "write_file", arguments: '{"path":"a.txt","content":"A"}' },
        },
      ],
    }),
    chunk({
      tool_calls: [
        {
          index: 0,
          id: "b",
          type: "function",
          function: { name: "write_file", arguments: '{"path":"b.txt","content":"B"}' },
        },
      ],
    }),
    chunk({}, "tool_calls"),
    sse("[DONE]"),
  ],
};

export const edgeScenarios: FaultScenario[] = [
  {
    name: "two calls streamed under one index",
    wire,
    expect: "kept apart by their ids: both calls run whole, never a merged or half call",
    scripts: [sameIndexTwoCalls, openaiText("ok")],
    checks: [fileIs("a.txt", "A"), fileIs("b.txt", "B"), exitCode(0)],
  },
  {
    name: "parallel calls that share one id",
    wire,
    expect: "both calls run; each result answers its own call under a distinct id",
    scripts: [
      openaiToolCalls([
        { name: "write_file", args: { path: "a.txt", content: "A\n" }, id: "call_0" },
        { name: "write_file", args: { path: "b.txt", content: "B\n" }, id: "call_0" },
      ]),
      openaiText("ok"),
    ],
    checks: [
      fileIs("a.txt", "A\n"),
      fileIs("b.txt", "B\n"),
      holds("the results do not answer distinct calls", (o) => {
        const body = o.requests[1]?.body as { messages?: Array<Record<string, unknown>> };
        const messages = body?.messages ?? [];
        const calls = messages.flatMap((m) =>
          Array.isArray(m.tool_calls)
            ? (m.tool_calls as Array<{ id: string }>).map((c) => c.id)
            : [],
        );
        const answered = messages
          .filter((m) => m.role === "tool")
          .map((m) => String(m.tool_call_id));
        return (
          calls.length === 2 &&
          new Set(calls).size === 2 &&
          JSON.stringify([...answered].sort()) === JSON.stringify([...calls].sort())
        );
      }),
      exitCode(0),
    ],
  },
  {
    name: "a tool call written as text (the server does not parse tool calls)",
    wire,
    expect: "nothing runs and the run is not reported done: the server's parser is named; no file",
    scripts: [
      openaiText(
        '<tool_call>\n{"name": "write_file", "arguments": {"path": "app.py", "content": "print(1)\\n"}}\n</tool_call>',
      ),
    ],
    checks: [
      absent("app.py"),
      requests(1),
      exitCode(1),
      stderrSays(/as plain text.*tool-call-parser/s),
    ],
  },
  {
    name: "two JSON objects concatenated in one call's arguments",
    wire,
    expect: "refused (neither silently dropped nor half-run); the model is told",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: '{"path":"a.txt","content":"A"}{"path":"b.txt","content":"B"}',
      }),
      openaiText("ok"),
    ],
    checks: [absent("a.txt"), absent("b.txt"), told(/JSON|arguments/)],
  },
  {
    name: "arguments double-encoded as a JSON string",
    wire,
    expect: "either decoded losslessly and written whole, or refused; never a wrong file",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: JSON.stringify(JSON.stringify({ path: "a.txt", content: "whole\n" })),
      }),
      openaiText("ok"),
    ],
    checks: [
      holds("a.txt holds other than the whole text", (o) =>
        ["", "whole\n"].includes(readOr(o.box.workspace, "a.txt")),
      ),
      exitCode(0),
    ],
  },
  {
    name: "finish_reason content_filter mid-call",
    wire,
    expect: "an abnormal stop: the call is not run",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "a.txt", content: "filtered?" },
        finishReason: "content_filter",
      }),
      openaiText("ok"),
    ],
    checks: [absent("a.txt"), told(/nothing was run or written/)],
  },
  {
    name: "a write in parts that never gets its last part",
    wire,
    expect: "the model is reminded once; then a failure exit, no file and no staging file left",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "big.txt", content: "first half\n", part: 1, parts: 2 },
      }),
    ],
    always: openaiText("All done, big.txt is written."),
    checks: [
      workspaceHolds(),
      requests(3),
      holds("the model was not reminded of the missing part", (o) =>
        /nothing of it is on disk yet: big\.txt \(1 of 2 parts staged\)/.test(
          o.requests[2]?.rawBody ?? "",
        ),
      ),
      stderrSays(/without sending every part of big\.txt/),
      exitCode(1),
    ],
  },
  {
    name: "a write in parts completed after the reminder",
    wire,
    expect: "the model sends the last part after the reminder; the file is whole; success",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "big.txt", content: "first half\n", part: 1, parts: 2 },
      }),
      openaiText("All done."),
      openaiToolCall({
        name: "write_file",
        args: { path: "big.txt", content: "second half\n", part: 2, parts: 2 },
      }),
      openaiText("Now it is written."),
    ],
    checks: [
      fileIs("big.txt", "first half\nsecond half\n"),
      workspaceHolds("big.txt"),
      requests(4),
      exitCode(0),
    ],
  },
  {
    name: "a write in parts interrupted by a 400",
    wire,
    expect: "the staging file is removed and the user told; nothing written",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "big.txt", content: "first half\n", part: 1, parts: 2 },
      }),
    ],
    always: status(400, { body: { error: { message: "bad request" } } }),
    checks: [workspaceHolds(), stderrSays(/Unfinished write in parts discarded/), exitCode(1)],
  },
  {
    name: "a write in parts, both parts whole",
    wire,
    expect: "the file is the parts joined, byte-exact (control)",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "big.txt", content: "first half\n", part: 1, parts: 2 },
      }),
      openaiToolCall({
        name: "write_file",
        args: { path: "big.txt", content: "second half\n", part: 2, parts: 2 },
      }),
      openaiText("Done."),
    ],
    checks: [fileIs("big.txt", "first half\nsecond half\n"), exitCode(0)],
  },
  {
    name: "an absolute path outside the workspace",
    wire,
    expect: "refused; nothing written there",
    setup: (box) => {
      mkdirSync(outside(box), { recursive: true });
    },
    handler: (_request, index, box) =>
      index === 0
        ? openaiToolCall({
            name: "write_file",
            args: { path: join(outside(box), "abs.txt"), content: "x" },
          })
        : openaiText("ok"),
    checks: [absent("../outside/abs.txt"), told(/outside the workspace/)],
  },
  {
    name: "a write through a hard link to a file outside",
    wire,
    expect:
      "the outside file keeps its bytes (the write replaces the link, never writes through it)",
    setup: (box) => {
      mkdirSync(outside(box), { recursive: true });
      writeFileSync(join(outside(box), "shared.txt"), "outside original\n");
      linkSync(join(outside(box), "shared.txt"), join(box.workspace, "shared.txt"));
    },
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "shared.txt" } }),
      openaiToolCall({
        name: "write_file",
        args: { path: "shared.txt", content: "changed from inside\n" },
      }),
      openaiText("ok"),
    ],
    checks: [
      fileIs("../outside/shared.txt", "outside original\n"),
      fileIs("shared.txt", "changed from inside\n"),
      requests(3),
      exitCode(0),
    ],
  },
  {
    name: "a path with a NUL byte",
    wire,
    expect: "refused with a message; nothing written; nex does not crash",
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "a\u0000.txt", content: "x" } }),
      openaiText("ok"),
    ],
    checks: [workspaceHolds(), exitCode(0), requests(2)],
  },
  {
    name: "the model asks bash for the API key",
    wire,
    expect:
      "the command runs without nex's key variables; the key reaches neither model nor output",
    env: { OPENAI_API_KEY: KEY },
    scripts: [
      openaiToolCall({ name: "bash", args: { command: 'echo "key=$OPENAI_API_KEY"' } }),
      openaiText("ok"),
    ],
    checks: [
      told(/key=/),
      holds("the key reached the model", (o) => o.requests.every((r) => !r.rawBody.includes(KEY))),
      neverPrinted(KEY),
      exitCode(0),
    ],
  },
  {
    name: "a 400 that echoes the key",
    wire,
    expect: "the error is shown with the key redacted",
    env: { OPENAI_API_KEY: KEY },
    always: status(400, {
      body: { error: { message: `bad header Authorization: Bearer ${KEY}` } },
    }),
    checks: [requests(1), exitCode(1), stderrSays(/bad header/), neverPrinted(KEY)],
  },
  {
    name: "Retry-After that is not a number or a date",
    wire,
    expect: "falls back to its own back-off; bounded; succeeds",
    scripts: [status(429, { headers: { "retry-after": "soon" } }), openaiText("Done.")],
    checks: [requests(2), exitCode(0)],
  },
  {
    name: "a 408 request timeout, then success",
    wire,
    expect: "retried like a 429, then succeeds",
    scripts: [status(408, { headers: { "retry-after": "0" } }), openaiText("Done.")],
    checks: [requests(2), exitCode(0)],
  },
  {
    name: "a tool call with no name",
    wire,
    expect: "nothing runs; the model is told; the next request is still accepted",
    scripts: [
      openaiToolCalls([{ name: "", args: { path: "a.txt", content: "x" } }]),
      openaiText("ok"),
    ],
    checks: [
      workspaceHolds(),
      holds("no tool result for the nameless call", (o) => toolResults(o.requests[1]).length > 0),
      exitCode(0),
    ],
  },
  {
    name: "an overwrite after bash changed the file the model read",
    wire,
    expect: "refused as stale: the command's change is kept; the model is told to read again",
    files: { "log.txt": "line 1\n" },
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "log.txt" } }),
      openaiToolCall({ name: "bash", args: { command: "echo 'line 2' >> log.txt" } }),
      openaiToolCall({ name: "write_file", args: { path: "log.txt", content: "line 1\nmine\n" } }),
      openaiText("ok"),
    ],
    checks: [fileIs("log.txt", "line 1\nline 2\n"), told(/modified since you read it/, 3)],
  },
  {
    name: "an overwrite of a file the model wrote itself",
    wire,
    expect: "allowed without a read (control: the guard does not refuse the model's own file)",
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "draft one\n" } }),
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "draft two\n" } }),
      openaiText("ok"),
    ],
    checks: [fileIs("a.txt", "draft two\n"), exitCode(0), requests(3)],
  },
  {
    name: "a final answer cut by length",
    wire,
    expect: "not reported as a finished task: non-zero exit, the cut named",
    scripts: [
      openaiText("Here is the summary of what I changed: first, ", { finishReason: "length" }),
    ],
    checks: [requests(1), exitCode(1), stderrSays(/cut off/)],
  },
];

/** A workspace file's text, or "" when it does not exist. */
function readOr(workspace: string, path: string): string {
  const abs = join(workspace, path);
  return existsSync(abs) ? readFileSync(abs, "utf8") : "";
}

// Faults a hostile or broken OpenAI-compatible endpoint produces in the field, beyond the list of
// issue 6: nex must be safe in scenarios it was never written for.
import {
  json,
  openaiText,
  openaiToolCall,
  openaiToolCalls,
  type Script,
  sse,
  status,
} from "../support/stub-scripts.ts";
import { multibyte, settingsPy, withLimits } from "./fixtures.ts";
import {
  absent,
  exitCode,
  type FaultScenario,
  fileIs,
  holds,
  maxTokensOf,
  neverPrinted,
  requests,
  requestsAtMost,
  stderrSays,
  told,
  workspaceHolds,
} from "./scenario.ts";

const wire = "openai";
const KEY = "sk-fault-suite-NEVER-PRINTED-0451";
const forecast = Array.from({ length: 40 }, (_, i) => `Day ${i + 1}: 14°C, wind 3 m/s`).join("\n");

/** A write cut by the output limit, the usage reporting the full max_tokens of the request. */
const cutAtLimit = (finishReason: string | null) => (request: { body: unknown }) =>
  openaiToolCall({
    name: "write_file",
    args: { path: "forecast.txt", content: forecast },
    cutAt: 300,
    finishReason,
    includeDone: true,
    usage: { input: 900, output: maxTokensOf(request as never) },
  });

const errorBody = (message: string) => ({ error: { message, type: "server_error" } });

export const fieldScenarios: FaultScenario[] = [
  {
    name: "the model truncates its write on every turn",
    wire,
    expect: "stops after a few requests (at most 4), not 50; no file; non-zero exit",
    handler: cutAtLimit("length"),
    checks: [requestsAtMost(4), absent("forecast.txt"), exitCode(1), stderrSays(/write_file/)],
  },
  {
    name: "finish_reason relabelled stop while usage equals max_tokens",
    wire,
    expect: "the cut call is refused all the same (usage is a signal of its own)",
    handler: (request, index) => (index === 0 ? cutAtLimit("stop")(request) : openaiText("ok")),
    checks: [absent("forecast.txt"), told(/nothing was run or written/, -1), exitCode(0)],
  },
  {
    name: "valid JSON relabelled stop while usage equals max_tokens",
    wire,
    expect: "a call that parses but hit the limit is still not run",
    handler: (request, index) =>
      index === 0
        ? openaiToolCall({
            name: "write_file",
            args: { path: "a.txt", content: "looks whole" },
            finishReason: "stop",
            usage: { input: 10, output: maxTokensOf(request) },
          })
        : openaiText("ok"),
    checks: [absent("a.txt"), told(/nothing was run or written/, -1)],
  },
  {
    name: "stream missing [DONE]",
    wire,
    expect: "a complete-looking call without the terminator is not run; the model is told",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "a.txt", content: "maybe whole" },
        includeDone: false,
      }),
      openaiText("ok"),
    ],
    checks: [absent("a.txt"), told(/nothing was run or written/), exitCode(0)],
  },
  {
    name: "no finish reason at all, [DONE] and a strict parse",
    wire,
    expect: "an unknown stop reason is not abnormal: the whole call runs (TGI sends none)",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "a.txt", content: "maybe whole" },
        finishReason: null,
      }),
      openaiText("ok"),
    ],
    checks: [fileIs("a.txt", "maybe whole"), exitCode(0)],
  },
  {
    name: "200 with an error JSON body (invalid request)",
    wire,
    expect: "classified as the 400 it stands for: one request; message surfaced; non-zero exit",
    always: json({ error: { message: "tools[0]: unknown field", type: "invalid_request_error" } }),
    checks: [requests(1), exitCode(1), stderrSays(/tools\[0\]: unknown field/)],
  },
  {
    name: "200 with a server_error JSON body, then success",
    wire,
    expect: "classified as a 5xx: retried after a back-off, then succeeds",
    scripts: [json(errorBody("upstream model crashed")), openaiText("Done.")],
    checks: [requests(2), exitCode(0), stderrSays(/upstream model crashed/)],
  },
  {
    name: "SSE error event mid-stream",
    wire,
    expect: "the half-streamed call is not run; the endpoint's error is shown",
    handler: (_request, index) => {
      if (index > 0) return openaiText("ok");
      const cut = openaiToolCall({
        name: "write_file",
        args: { path: "half.txt", content: "z".repeat(300) },
        cutAt: 100,
      });
      if (cut.type !== "stream") return cut;
      return { ...cut, parts: [...cut.parts, sse(errorBody("model overloaded mid-stream"))] };
    },
    checks: [absent("half.txt"), stderrSays(/model overloaded mid-stream/), requestsAtMost(2)],
  },
  {
    name: "HTML page instead of the API",
    wire,
    expect: "one request; says it got a web page; non-zero exit",
    always: {
      type: "reply",
      status: 200,
      headers: { "content-type": "text/html" },
      body: "<html><body>Proxy login</body></html>",
    },
    checks: [requests(1), exitCode(1), stderrSays(/web page/)],
  },
  {
    name: "garbage SSE events",
    wire,
    expect: "an error, not an empty success; one request",
    always: { type: "stream", parts: ["data: not json\n\n", "data: {broken\n\n", sse("[DONE]")] },
    checks: [requests(1), exitCode(1), holds("stdout is not empty", (o) => o.stdout === "")],
  },
  {
    name: "empty choices",
    wire,
    expect: "an error (the response was empty), not an empty success",
    always: { type: "stream", parts: [sse({ id: "x", choices: [] }), sse("[DONE]")] },
    checks: [requestsAtMost(2), exitCode(1), stderrSays(/empty/)],
  },
  {
    name: "401 bad key",
    wire,
    expect: "one request, exit 3, the key never printed",
    env: { OPENAI_API_KEY: KEY },
    always: status(401, { body: { error: { message: `Incorrect API key provided: ${KEY}` } } }),
    checks: [requests(1), exitCode(3), stderrSays(/OPENAI_API_KEY/), neverPrinted(KEY)],
  },
  {
    name: "403 forbidden",
    wire,
    expect: "one request, exit 3, the key never printed",
    env: { OPENAI_API_KEY: KEY },
    always: status(403, { body: { error: { message: "Project lacks access" } } }),
    checks: [requests(1), exitCode(3), neverPrinted(KEY)],
  },
  {
    name: "404 unknown model",
    wire,
    expect: "one request; the server's message says which model; non-zero exit",
    always: status(404, { body: { error: { message: "The model `stub-model` does not exist" } } }),
    checks: [requests(1), exitCode(1), stderrSays(/does not exist/)],
  },
  {
    name: "413 payload too large",
    wire,
    expect: "not retried byte-identically: at most one request; non-zero exit",
    always: status(413, { body: "request entity too large" }),
    checks: [requestsAtMost(1), exitCode(1), stderrSays(/413/)],
  },
  {
    name: "retry-after-ms on a 429",
    wire,
    expect: "waits the milliseconds asked, then succeeds",
    scripts: [status(429, { headers: { "retry-after-ms": "1200" } }), openaiText("Done.")],
    checks: [
      requests(2),
      holds("retry came before 1.1 s", (o) => {
        const [a, b] = o.requests;
        return (b?.receivedAt ?? 0) - (a?.receivedAt ?? 0) >= 1100;
      }),
      exitCode(0),
    ],
  },
  {
    name: "Retry-After: 120 on a 503",
    wire,
    expect: "surfaced at once like a 429's: one request",
    always: status(503, { headers: { "retry-after": "120" } }),
    checks: [requests(1), exitCode(1), stderrSays(/120/)],
  },
  {
    name: "connection reset before any answer, then success",
    wire,
    expect: "retried (nothing was shown yet) and succeeds",
    scripts: [{ type: "destroy" }, openaiText("Done.")],
    checks: [requests(2), exitCode(0)],
  },
  {
    name: "the same tool call forever",
    wire,
    expect: "stopped within a handful of requests, not 50",
    always: openaiToolCall({ name: "list_dir", args: { path: "." } }),
    checks: [requestsAtMost(6), exitCode(1), stderrSays(/same list_dir call/)],
  },
  {
    name: "invalid JSON arguments every turn",
    wire,
    expect: "refused each time, stopped after a few requests; no file",
    always: openaiToolCall({ name: "write_file", args: '{path: "a.txt", content: "x"}' }),
    checks: [requestsAtMost(4), absent("a.txt"), exitCode(1), told(/JSON/)],
  },
  {
    name: "parallel calls, the second cut by a dropped connection",
    wire,
    expect: "the cut call is not run; the model is told about it",
    scripts: [
      openaiToolCalls(
        [
          { name: "write_file", args: { path: "one.txt", content: "one\n" } },
          { name: "write_file", args: { path: "two.txt", content: "t".repeat(300) }, cutAt: 90 },
        ],
        { end: "destroy" },
      ),
      openaiText("ok"),
    ],
    checks: [absent("two.txt"), told(/nothing was run or written/), exitCode(0)],
  },
  {
    name: "parallel calls, the second cut by length",
    wire,
    expect: "the cut call is not run; each call gets its own tool result",
    scripts: [
      openaiToolCalls(
        [
          { name: "write_file", args: { path: "one.txt", content: "one\n" } },
          { name: "write_file", args: { path: "two.txt", content: "t".repeat(300) }, cutAt: 90 },
        ],
        { finishReason: "length", includeDone: true },
      ),
      openaiText("ok"),
    ],
    checks: [
      absent("two.txt"),
      holds("expected a tool result per call", (o) => {
        const body = o.requests[1]?.body as { messages: Array<{ role: string }> };
        return body.messages.filter((m) => m.role === "tool").length === 2;
      }),
      exitCode(0),
    ],
  },
  {
    name: "a write with an omission placeholder",
    wire,
    expect: "the read file keeps its bytes; the model is told to send the whole text",
    files: { "settings.py": settingsPy },
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "settings.py" } }),
      openaiToolCall({
        name: "write_file",
        args: {
          path: "settings.py",
          content: `${settingsPy.split("\n").slice(0, 3).join("\n")}\n# ... rest of the settings unchanged\n${settingsPy.split("\n").slice(150).join("\n")}`,
        },
      }),
      openaiText("ok"),
    ],
    checks: [fileIs("settings.py", settingsPy), told(/omission placeholder/, 2), exitCode(0)],
  },
  {
    name: "an empty write over an unread file",
    wire,
    expect: "the file keeps its bytes (probable content loss)",
    files: { "README.md": "# Project\n\nHow to build it.\n" },
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "README.md", content: "" } }),
      openaiText("ok"),
    ],
    checks: [fileIs("README.md", "# Project\n\nHow to build it.\n"), told(/Nothing was written/)],
  },
  {
    name: "an edit whose new_string is cut",
    wire,
    expect: "the file keeps its bytes; nothing half-replaced",
    files: { "app.js": "const port = 8080;\n" },
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "app.js" } }),
      openaiToolCall({
        name: "edit_file",
        args: { path: "app.js", old_string: "8080", new_string: "9090; // moved to 9090" },
        cutAt: 60,
        end: "destroy",
      }),
      openaiText("ok"),
    ],
    checks: [fileIs("app.js", "const port = 8080;\n"), told(/nothing was run or written/, 2)],
  },
  {
    name: "an unknown tool name",
    wire,
    expect: "nothing runs; the model is told which tools exist",
    scripts: [openaiToolCall({ name: "delete_everything", args: { path: "." } }), openaiText("ok")],
    files: { "keep.txt": "keep\n" },
    checks: [fileIs("keep.txt", "keep\n"), told(/Unknown tool/), exitCode(0)],
  },
  {
    name: "multi-byte text split across chunks",
    wire,
    expect:
      "a whole call runs and the file is byte-exact (control: nex is not refusing everything)",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "i18n.txt", content: multibyte },
        chunkSize: 3,
      }),
      openaiText("Written."),
    ],
    checks: [fileIs("i18n.txt", multibyte), workspaceHolds("i18n.txt"), exitCode(0), requests(2)],
  },
  {
    name: "a cut write escalates the output limit once",
    wire,
    expect: "the next request asks for more output tokens; no file from the cut call",
    setup: (box) => withLimits(box, wire, { contextWindow: 65_536, maxOutput: 32_768 }),
    handler: (request, index) => (index === 0 ? cutAtLimit("length")(request) : openaiText("ok")),
    checks: [
      absent("forecast.txt"),
      holds("the second request did not ask for more output", (o) => {
        const [first, second] = o.requests;
        return maxTokensOf(second) > maxTokensOf(first);
      }),
      exitCode(0),
    ],
  },
  {
    name: "whole responses (stream: false) cut by length",
    wire,
    expect: "the non-streamed cut call is refused too",
    setup: (box) => withLimits(box, wire, { contextWindow: 32_768 }, { stream: false }),
    scripts: [
      json({
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: null,
              tool_calls: [
                {
                  id: "c1",
                  type: "function",
                  function: { name: "write_file", arguments: '{"path":"a.txt","content":"cu' },
                },
              ],
            },
            finish_reason: "length",
          },
        ],
      }),
      json({
        choices: [
          { index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" },
        ],
      }),
    ],
    checks: [absent("a.txt"), told(/nothing was run or written/), exitCode(0)],
  },
  {
    name: "a stream that closes after the role chunk, then success",
    wire,
    expect: "not an empty success: retried (nothing was shown yet), then succeeds",
    scripts: [
      {
        type: "stream",
        parts: [
          sse({
            id: "x",
            choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }],
          }),
        ],
      } as Script,
      openaiText("Done."),
    ],
    checks: [requests(2), exitCode(0), stderrSays(/before any output/)],
  },
];

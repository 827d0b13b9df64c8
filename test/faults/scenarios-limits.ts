// Limits a broken server or model could push past: the context it says it has, a body without end,
// a redirect loop, a model that goes round in circles. nex must notice, stop and say so.
import { openaiText, openaiToolCall, type Script, status } from "../support/stub-scripts.ts";
import { withLimits } from "./fixtures.ts";
import {
  absent,
  exitCode,
  type FaultScenario,
  fileIs,
  holds,
  requests,
  requestsAtMost,
  stderrSays,
  told,
} from "./scenario.ts";

const mebibyte = "x".repeat(1024 * 1024);
const flood: Script = {
  type: "stream",
  status: 200,
  headers: { "content-type": "text/event-stream" },
  parts: Array.from({ length: 80 }, () => mebibyte),
};

const report = "A line of the quarterly report, with figures: 12.5, 13.1, 9.8.\n";

const longTask = `Summarise these notes:\n${"The build failed on the arm64 runner again; retry later.\n".repeat(1_200)}`;

export const limitScenarios: FaultScenario[] = [
  {
    name: "a server that silently cuts long prompts (Ollama beyond num_ctx)",
    wire: "openai",
    expect:
      "the implausibly low prompt count is not trusted; the user is told the model may not see it all",
    task: longTask,
    scripts: [
      openaiText("Summary: the arm64 build keeps failing.", { usage: { input: 2_048, output: 9 } }),
    ],
    checks: [
      requests(1),
      exitCode(0),
      stderrSays(/counted 2,048 prompt tokens where nex estimated about/),
    ],
  },
  {
    name: "an endless body with no line ends (80 MiB and counting)",
    wire: "openai",
    expect: "nex stops reading at 64 MiB, never asks again for the same flood, and says why",
    scripts: [flood],
    always: openaiText("unused"),
    checks: [requests(1), exitCode(1), stderrSays(/more than 64 MiB in one response/)],
  },
  {
    name: "a redirect loop",
    wire: "openai",
    expect:
      "followed at most 5 times, then named as a loop and never retried (not 6 × 21 requests)",
    always: status(307, { headers: { location: "/v1/chat/completions" } }),
    checks: [requestsAtMost(6), exitCode(3), stderrSays(/redirects in a loop/)],
  },
  {
    name: "a model that reads two files in turn, forever",
    wire: "openai",
    expect:
      "a read that already answered twice with nothing changed is not run again; stopped well before 50",
    files: { "a.txt": "alpha\n", "b.txt": "beta\n" },
    handler: (_request, index) =>
      openaiToolCall({ name: "read_file", args: { path: index % 2 === 0 ? "a.txt" : "b.txt" } }),
    checks: [
      requestsAtMost(10),
      exitCode(1),
      stderrSays(/already returned the same result 2 times, and nothing has changed since/),
    ],
  },
  {
    name: "a large write cut by the output limit, in a 16k window",
    wire: "openai",
    expect:
      "the cut 120 KB never rides along in later requests, so the session goes on and the file is written in parts",
    setup: (box) => withLimits(box, "openai", { contextWindow: 16_384, maxOutput: 4_096 }),
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "report.txt", content: report.repeat(2_000) },
        cutAt: 120_000,
        finishReason: "length",
        includeDone: true,
      }),
      openaiToolCall({
        name: "write_file",
        args: { path: "report.txt", content: report.repeat(2), part: 1, parts: 2 },
      }),
      openaiToolCall({
        name: "write_file",
        args: { path: "report.txt", content: report, part: 2, parts: 2 },
      }),
      openaiText("Written in parts."),
    ],
    checks: [
      fileIs("report.txt", report.repeat(3)),
      holds("a later request carried the cut arguments", (o) =>
        o.requests.slice(1).every((r) => r.rawBody.length < 30_000),
      ),
      exitCode(0),
    ],
  },
  {
    name: "arguments nested 100,000 levels deep",
    wire: "openai",
    expect:
      "refused as unreadable before anything walks them; nex neither crashes nor runs the call",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: `{"path":"deep.txt","content":"x","z":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
        chunkSize: 4096,
      }),
      openaiText("ok"),
    ],
    // 200 KB of brackets is also far past the max_tokens asked for: either refusal is safe.
    checks: [
      absent("deep.txt"),
      told(/nest deeper than 64 levels|far beyond the max_tokens/),
      requests(2),
      exitCode(0),
    ],
  },
  {
    name: "arguments nested 50,000 levels deep, within max_tokens",
    wire: "openai",
    expect:
      "refused as unreadable before anything walks them; nex neither crashes nor runs the call",
    setup: (box) => withLimits(box, "openai", { contextWindow: 131_072, maxOutput: 32_768 }),
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: `{"path":"deep.txt","content":"x","z":${"[".repeat(50_000)}${"]".repeat(50_000)}}`,
        chunkSize: 4096,
      }),
      openaiText("ok"),
    ],
    checks: [absent("deep.txt"), told(/nest deeper than 64 levels/), requests(2), exitCode(0)],
  },
];

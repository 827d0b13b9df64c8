// Limits a broken server or model could push past: the context it says it has, a body without end,
// a redirect loop, a model that goes round in circles. nex must notice, stop and say so.
import { openaiText, openaiToolCall, type Script, status } from "../support/stub-scripts.ts";
import { exitCode, type FaultScenario, requests, requestsAtMost, stderrSays } from "./scenario.ts";

const mebibyte = "x".repeat(1024 * 1024);
const flood: Script = {
  type: "stream",
  status: 200,
  headers: { "content-type": "text/event-stream" },
  parts: Array.from({ length: 80 }, () => mebibyte),
};

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
];

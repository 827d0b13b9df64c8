// Servers whose context window is not what they say: nex must notice what it can and say so.
import { openaiText, type Script, status } from "../support/stub-scripts.ts";
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
];

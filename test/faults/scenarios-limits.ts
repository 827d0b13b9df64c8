// Servers whose context window is not what they say: nex must notice what it can and say so.
import { openaiText } from "../support/stub-scripts.ts";
import { exitCode, type FaultScenario, requests, stderrSays } from "./scenario.ts";

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
];

// Wire oddities that lose nothing when understood: bodies whose label and content disagree (nex reads
// what the body is, with every integrity check of that reader), and tools named with a namespace.
import { openaiText, openaiToolCall, type Script } from "../support/stub-scripts.ts";
import { withLimits } from "./fixtures.ts";
import { absent, exitCode, type FaultScenario, fileIs, requests, told } from "./scenario.ts";

const labelled = (contentType: string, script: Script): Script =>
  ({
    ...script,
    headers: { ...(script as { headers?: object }).headers, "content-type": contentType },
  }) as Script;

const wholeAnswer = (content: string, finishReason: string): Script => ({
  type: "stream",
  status: 200,
  headers: { "content-type": "text/event-stream" },
  parts: [
    JSON.stringify({
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finishReason }],
      usage: { prompt_tokens: 12, completion_tokens: 3 },
    }),
  ],
});

export const wireScenarios: FaultScenario[] = [
  {
    name: "a streamed answer labelled application/json",
    wire: "openai",
    expect: "read as the stream it is: the whole call runs, once",
    scripts: [
      labelled(
        "application/json",
        openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "A\n" } }),
      ),
      openaiText("Done."),
    ],
    checks: [fileIs("a.txt", "A\n"), requests(2), exitCode(0)],
  },
  {
    name: "a cut stream labelled application/json",
    wire: "openai",
    expect: "still a cut stream: no file",
    scripts: [
      labelled(
        "application/json",
        openaiToolCall({
          name: "write_file",
          args: { path: "a.txt", content: "A long line.\n".repeat(50) },
          cutAt: 200,
        }),
      ),
      openaiText("Stopping."),
    ],
    checks: [absent("a.txt"), exitCode(0)],
  },
  {
    name: "a whole JSON answer labelled text/event-stream",
    wire: "openai",
    expect: "read as the whole answer it is, not retried as an empty stream",
    scripts: [wholeAnswer("Here is the answer.", "stop"), openaiText("unused")],
    checks: [requests(1), exitCode(0)],
  },
  {
    name: '"stream": false, and the server streams anyway',
    wire: "openai",
    expect: "read as the stream it is, with a stream's checks: the whole call runs",
    setup: (box) => withLimits(box, "openai", { contextWindow: 32_768 }, { stream: false }),
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "A\n" } }),
      openaiText("Done."),
    ],
    checks: [fileIs("a.txt", "A\n"), requests(2), exitCode(0)],
  },
  {
    name: "a tool named with its namespace (functions.write_file)",
    wire: "openai",
    expect: "the tool meant is not in doubt: the call runs as write_file",
    scripts: [
      openaiToolCall({ name: "functions.write_file", args: { path: "a.txt", content: "A\n" } }),
      openaiText("Done."),
    ],
    checks: [fileIs("a.txt", "A\n"), exitCode(0)],
  },
  {
    name: "a namespaced bash call still meets the deny rules",
    wire: "openai",
    expect: "the rules see the real tool: `functions.bash touch x` is denied like `bash touch x`",
    setup: (box) =>
      withLimits(box, "openai", { contextWindow: 32_768 }, { commands: { deny: ["touch"] } }),
    scripts: [
      openaiToolCall({ name: "functions.bash", args: { command: "touch made.txt" } }),
      openaiText("Understood."),
    ],
    checks: [absent("made.txt"), told(/deny rule/), exitCode(4)],
  },
];

// Child process of the assembly benchmark (one measurement per process, so peak RSS is its own):
//   node bench/assembly-probe.ts assembler <bytes> <fragments>
//   node bench/assembly-probe.ts client <bytes> <fragments> <stub base URL>
// Prints one JSON line: time, CPU, peak RSS and the RSS before the measurement.
import type { AssembledTurn } from "../src/protocol/index.ts";
import { createOpenAIClient } from "../src/providers/openai/openai.ts";
import { createTurnAssembler } from "../src/providers/turns/assembler.ts";
import { bigArgument, fragments } from "./big-argument.ts";

const [mode, bytesArg, countArg, url] = process.argv.slice(2);
const text = bigArgument(Number(bytesArg));
const pieces = fragments(text, Number(countArg));

function assembleInProcess(): AssembledTurn {
  const assembler = createTurnAssembler({
    wire: "openai",
    streaming: true,
    maxTokens: 1_000_000,
    explicitClose: false,
  });
  assembler.addCallDelta(0, { id: "call_1", name: "write_file", argumentsText: "" });
  for (const piece of pieces) assembler.addCallDelta(0, { argumentsText: piece });
  assembler.setStopReason("tool_calls");
  assembler.markTerminated();
  return assembler.finish();
}

async function assembleThroughClient(): Promise<AssembledTurn> {
  const stream = createOpenAIClient({ baseUrl: `${url}/v1`, apiKey: "bench" });
  const request = {
    model: "bench-model",
    system: "",
    messages: [{ type: "user" as const, text: "write the file" }],
    tools: [],
    maxTokens: 1_000_000,
    requestId: 1,
  };
  for await (const event of stream(request, new AbortController().signal)) {
    if (event.type === "done") return event.turn;
    if (event.type === "error") throw new Error(event.error.message);
  }
  throw new Error("the stream ended without a turn");
}

const rssBefore = process.memoryUsage().rss;
const cpu = process.cpuUsage();
const start = performance.now();
const turn = mode === "client" ? await assembleThroughClient() : assembleInProcess();
const ms = performance.now() - start;
const used = process.cpuUsage(cpu);
const call = turn.toolCalls[0];
if (call?.argumentsText !== text || call.verdict.type !== "whole") {
  throw new Error("the assembled call is not the argument that was sent, or not whole");
}
console.log(
  JSON.stringify({
    ms,
    cpuMs: (used.user + used.system) / 1000,
    rssBeforeKb: Math.round(rssBefore / 1024),
    maxRssKb: process.resourceUsage().maxRSS,
    argumentBytes: Buffer.byteLength(text),
  }),
);

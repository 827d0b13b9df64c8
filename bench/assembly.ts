// Assembly of a large tool-call argument streamed in many small fragments: the assembler alone, and
// the real OpenAI client reading the stream from the stub endpoint. Each measurement runs in its own
// process (assembly-probe.ts), so its peak RSS is its own; the stub runs here, so its work is not counted.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { startStubEndpoint } from "../test/support/stub-endpoint.ts";
import { type Script, sse } from "../test/support/stub-scripts.ts";
import { bigArgument, fragments } from "./big-argument.ts";
import { type Figure, mb, median, say, verdict } from "./report.ts";

const run = promisify(execFile);
const probe = join(import.meta.dirname, "assembly-probe.ts");

const ASSEMBLER_GOAL_MS = 100;
// Reading 1 MB of SSE from a local socket, parsing 20,000 JSON events and assembling: the goal allows
// about 25 µs per event.
const CLIENT_GOAL_MS = 500;
// Twice the bytes may cost at most this much more than twice the time: linear, with room for noise.
const LINEAR_SLACK = 1.5;

interface Measure {
  ms: number;
  cpuMs: number;
  rssBeforeKb: number;
  maxRssKb: number;
  argumentBytes: number;
}

/** An OpenAI stream of one write_file call whose arguments come in exactly `count` events. */
function streamedCall(text: string, count: number): Script {
  const chunk = (delta: unknown, finish: string | null = null) =>
    sse({
      id: "bench",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  const call = (fn: Record<string, string>, id?: string) =>
    chunk({ tool_calls: [{ index: 0, ...(id ? { id, type: "function" } : {}), function: fn }] });
  const parts = [
    chunk({ role: "assistant", content: null }),
    call({ name: "write_file", arguments: "" }, "call_1"),
    ...fragments(text, count).map((piece) => call({ arguments: piece })),
    chunk({}, "tool_calls"),
    sse("[DONE]"),
  ];
  return { type: "stream", status: 200, headers: { "content-type": "text/event-stream" }, parts };
}

async function measure(args: string[], repeats: number): Promise<Measure> {
  const all: Measure[] = [];
  for (let i = 0; i < repeats; i++) {
    const { stdout } = await run(process.execPath, [probe, ...args], { maxBuffer: 1 << 20 });
    all.push(JSON.parse(stdout) as Measure);
  }
  const mid = median(all.map((m) => m.ms));
  return all.reduce((a, b) => (Math.abs(b.ms - mid) < Math.abs(a.ms - mid) ? b : a));
}

function line(label: string, fragments: number, m: Measure): void {
  say(
    `${label} ${(m.argumentBytes / 1e6).toFixed(2)} MB in ${String(fragments).padStart(6)} fragments: ` +
      `${m.ms.toFixed(1).padStart(6)} ms, ${m.cpuMs.toFixed(0).padStart(4)} ms CPU, ` +
      `peak RSS ${mb(m.maxRssKb)} (+${mb(m.maxRssKb - m.rssBeforeKb)} over the process before it began)`,
  );
}

/** The assembler alone and the OpenAI client, at 0.25-2 MB with 50-byte fragments; 1 MB / 20,000 is the figure. */
export async function benchAssembly(options: { quick: boolean }): Promise<Figure[]> {
  say("\n## Assembly of a large tool-call argument (write_file, ~50-byte fragments)");
  const repeats = options.quick ? 1 : 3;
  const sizes = [
    { bytes: 250_000, fragments: 5_000 },
    { bytes: 500_000, fragments: 10_000 },
    { bytes: 1_000_000, fragments: 20_000 },
    { bytes: 2_000_000, fragments: 40_000 },
  ];
  const alone: Measure[] = [];
  for (const size of sizes) {
    const m = await measure(["assembler", String(size.bytes), String(size.fragments)], repeats);
    line("assembler alone:", size.fragments, m);
    alone.push(m);
  }
  const client: Measure[] = [];
  for (const size of sizes) {
    const script = streamedCall(bigArgument(size.bytes), size.fragments);
    const stub = await startStubEndpoint({ handler: () => script });
    const m = await measure(
      ["client", String(size.bytes), String(size.fragments), stub.url],
      repeats,
    );
    await stub.close();
    line("OpenAI client:  ", size.fragments, m);
    client.push(m);
  }
  const at = (list: Measure[], i: number) => list[i] as Measure;
  // Linear: from 0.5 MB to 2 MB the time may grow at most 4 × LINEAR_SLACK.
  const growth = (list: Measure[]) => at(list, 3).ms / at(list, 1).ms;
  const deltaKb = (m: Measure) => m.maxRssKb - m.rssBeforeKb;
  return [
    {
      section: "assembly",
      name: "1 MB / 20,000 fragments, assembler alone",
      value: `${at(alone, 2).ms.toFixed(1)} ms, peak +${mb(deltaKb(at(alone, 2)))}`,
      goal: `< ${ASSEMBLER_GOAL_MS} ms`,
      verdict: verdict(at(alone, 2).ms < ASSEMBLER_GOAL_MS),
    },
    {
      section: "assembly",
      name: "1 MB / 20,000 fragments, OpenAI client",
      value: `${at(client, 2).ms.toFixed(1)} ms, peak +${mb(deltaKb(at(client, 2)))}`,
      goal: `< ${CLIENT_GOAL_MS} ms`,
      verdict: verdict(at(client, 2).ms < CLIENT_GOAL_MS),
    },
    {
      section: "assembly",
      name: "time 0.5 MB → 2 MB (4× the bytes)",
      value: `assembler ×${growth(alone).toFixed(1)}, client ×${growth(client).toFixed(1)}`,
      goal: `linear: ≤ ×${(4 * LINEAR_SLACK).toFixed(0)}`,
      verdict: verdict(Math.max(growth(alone), growth(client)) <= 4 * LINEAR_SLACK),
    },
  ];
}

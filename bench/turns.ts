// The harness's own cost per agent turn: `nex run` against a zero-latency stub endpoint that answers
// with small tool calls (write a file, read it back), then a final text answer.
import { startStubEndpoint } from "../test/support/stub-endpoint.ts";
import { openaiText, openaiToolCall, type Script } from "../test/support/stub-scripts.ts";
import { endpointArgs, type NexRun, runNex, scratch } from "./nex-process.ts";
import { type Figure, mb, median, say, verdict } from "./report.ts";

// pi spends 2.3 s of CPU on the same 200 turns; the goal is a fifth of that.
const CPU_GOAL_MS = 460;
const TURNS = 200;
// Retained heap per turn beyond what the conversation itself holds: each turn adds about 0.5 KB of
// messages (kept in memory, as they must be); more than 16 KB per turn would mean something grows
// that should not.
const GROWTH_GOAL_KB = 16;

/** `turns` tool turns that write a file and read it back, then a closing answer. */
export function fileTurnScripts(turns: number): Script[] {
  const scripts: Script[] = [];
  for (let i = 0; i < turns; i++) {
    const file = `file-${Math.floor(i / 2)}.txt`;
    scripts.push(
      i % 2 === 0
        ? openaiToolCall({
            name: "write_file",
            args: { path: file, content: `line ${i}\n`.repeat(20) },
            id: `c${i}`,
          })
        : openaiToolCall({ name: "read_file", args: { path: file }, id: `c${i}` }),
    );
  }
  scripts.push(openaiText("All files written and read back."));
  return scripts;
}

/** One `nex run` of `turns` tool turns plus the closing answer. */
async function runTurns(turns: number, preload: string[] = []): Promise<NexRun> {
  const dirs = scratch();
  const stub = await startStubEndpoint({ scripts: fileTurnScripts(turns) });
  const run = await runNex(
    [
      "run",
      "--yes",
      "--max-turns",
      String(turns + 5),
      // A 128k window, as the models people run agents with have: the whole 200-turn conversation
      // (~25k tokens) fits, so the figure is the harness, not a compaction.
      ...endpointArgs(stub.url, dirs.dataDir, 131_072),
      "write and read files",
    ],
    { cwd: dirs.workspace, preload },
  );
  const requests = stub.requestsTo("/v1/chat/completions").length;
  await stub.close();
  dirs.remove();
  if (run.code !== 0) {
    throw new Error(`${turns} tool turns: nex exited ${run.code}\n${run.stderr.slice(-2000)}`);
  }
  if (requests !== turns + 1)
    throw new Error(`${turns} tool turns sent ${requests} model requests`);
  return run;
}

/** The median run (by CPU) of `repeats`, so one disturbed run does not decide the figure. */
async function medianRun(turns: number, repeats: number, preload: string[] = []): Promise<NexRun> {
  const runs: NexRun[] = [];
  for (let i = 0; i < repeats; i++) runs.push(await runTurns(turns, preload));
  const cpus = runs.map((r) => r.cpuMs);
  const mid = median(cpus);
  const chosen = runs.reduce((a, b) => (Math.abs(b.cpuMs - mid) < Math.abs(a.cpuMs - mid) ? b : a));
  say(
    `${String(turns).padStart(3)} tool turns${preload.length > 0 ? ` (${preload.join(", ")})` : ""}: CPU ${cpus.map((c) => c.toFixed(0)).join(" / ")} ms; ` +
      `median run: ${chosen.cpuMs.toFixed(0)} ms CPU (user ${chosen.userMs.toFixed(0)}, system ${chosen.systemMs.toFixed(0)}), ${chosen.wallMs.toFixed(0)} ms wall, ` +
      `peak RSS ${mb(chosen.maxRssKb)}, heap after GC at exit ${mb(chosen.heapAfterGcKb)}`,
  );
  return chosen;
}

/** CPU, wall and memory of 0, 50 and 200 tool turns; per-turn figures are differences between them. */
export async function benchTurns(options: { quick: boolean }): Promise<Figure[]> {
  say("\n## Harness cost per agent turn (zero-latency stub endpoint, write_file/read_file calls)");
  const repeats = options.quick ? 1 : 3;
  await runTurns(1); // fills the compile cache
  const zero = await medianRun(0, repeats);
  const fifty = await medianRun(50, repeats);
  const full = await medianRun(TURNS, repeats);
  // Attribution only: the same run with fsync/fdatasync made no-ops shows what durability costs.
  const unsynced = await medianRun(TURNS, repeats, ["without-fsync.js"]);
  const perTurnCpu = (full.cpuMs - zero.cpuMs) / TURNS;
  const rssGrowth = (full.maxRssKb - fifty.maxRssKb) / (TURNS - 50);
  const heapGrowth = (full.heapAfterGcKb - fifty.heapAfterGcKb) / (TURNS - 50);
  say(
    `per turn: ${perTurnCpu.toFixed(2)} ms CPU beyond start-up (the 0-turn run: ${zero.cpuMs.toFixed(0)} ms CPU); ` +
      `growth 50 → 200 turns: peak RSS ${rssGrowth.toFixed(1)} KB/turn, retained heap ${heapGrowth.toFixed(1)} KB/turn`,
  );
  return [
    {
      section: "turns",
      name: `${TURNS} tool turns, CPU (start-up included)`,
      value: `${(full.cpuMs / 1000).toFixed(2)} s (${full.wallMs.toFixed(0)} ms wall)`,
      goal: `< ${(CPU_GOAL_MS / 1000).toFixed(2)} s (pi 2.3 s / 5)`,
      verdict: verdict(full.cpuMs < CPU_GOAL_MS),
    },
    {
      section: "turns",
      name: "CPU per turn (beyond start-up)",
      value: `${perTurnCpu.toFixed(2)} ms`,
      goal: `< ${(CPU_GOAL_MS / TURNS).toFixed(2)} ms`,
      verdict: verdict(perTurnCpu < CPU_GOAL_MS / TURNS),
    },
    {
      section: "turns",
      name: `${TURNS} tool turns, fsync made no-op`,
      value: `${(unsynced.cpuMs / 1000).toFixed(2)} s (${unsynced.wallMs.toFixed(0)} ms wall)`,
      goal: "(attribution: durability's share)",
      verdict: "info",
    },
    {
      section: "turns",
      name: `peak RSS, ${TURNS} turns`,
      value: `${mb(full.maxRssKb)} (0 turns: ${mb(zero.maxRssKb)})`,
      goal: "(context)",
      verdict: "info",
    },
    {
      section: "turns",
      name: "memory growth per turn, 50 → 200",
      value: `heap ${heapGrowth.toFixed(1)} KB, RSS ${rssGrowth.toFixed(1)} KB`,
      goal: `flat: heap < ${GROWTH_GOAL_KB} KB/turn`,
      verdict: verdict(heapGrowth < GROWTH_GOAL_KB),
    },
  ];
}

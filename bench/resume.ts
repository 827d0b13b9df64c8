// Resume cost against journal length (goal: flat, because loadForResume reads from the end): the
// in-process loadForResume (resume-probe.ts, one process per measurement) and the end-to-end
// `nex resume --last "task"` from spawn to its first model request.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { contextBudget } from "../src/session/budget.ts";
import { startStubEndpoint } from "../test/support/stub-endpoint.ts";
import { openaiText } from "../test/support/stub-scripts.ts";
import { type BenchJournal, cacheDir, ensureJournal, restoreJournal } from "./journal-file.ts";
import { endpointArgs, runNex } from "./nex-process.ts";
import { type Figure, mb, median, say, verdict } from "./report.ts";

const run = promisify(execFile);
const probe = join(import.meta.dirname, "resume-probe.ts");

const WINDOW = 32768;
const SYSTEM_AND_TOOLS = 2500;
// Flat: a longer journal may cost at most this much more than the 1k-message one (noise allowance).
// Judged on CPU time, which other work on the machine disturbs far less than wall time.
const TIME_SLACK = 1.5;
const TIME_SLACK_MS = 5;
const RSS_SLACK_KB = 16 * 1024;

interface Measure {
  ms: number;
  maxRssKb: number;
  cpuMs: number;
  detail: string;
}

/** The run with the median CPU time (the figure the verdict uses). */
function medianOf(all: Measure[]): Measure {
  const mid = median(all.map((m) => m.cpuMs));
  return all.reduce((a, b) => (Math.abs(b.cpuMs - mid) < Math.abs(a.cpuMs - mid) ? b : a));
}

async function inProcess(journal: BenchJournal, repeats: number): Promise<Measure> {
  const budget = contextBudget({ window: WINDOW }).promptBudget - SYSTEM_AND_TOOLS;
  const all: Measure[] = [];
  for (let i = 0; i < repeats; i++) {
    const { stdout } = await run(process.execPath, [probe, journal.path, String(budget)]);
    const r = JSON.parse(stdout) as Record<string, number>;
    const read = (r.bytesRead as number) / journal.bytes;
    all.push({
      ms: r.ms as number,
      cpuMs: r.cpuMs as number,
      maxRssKb: r.maxRssKb as number,
      detail: `read ${((r.bytesRead as number) / 1024).toFixed(0)} KB (${(read * 100).toFixed(read < 0.01 ? 3 : 1)}% of the file), kept ${r.keptMessages} of ${r.totalMessages}; tokenizer load ${(r.tokenizerMs as number).toFixed(0)} ms before the timer`,
    });
  }
  return medianOf(all);
}

async function endToEnd(journal: BenchJournal, repeats: number): Promise<Measure> {
  const all: Measure[] = [];
  for (let i = 0; i < repeats; i++) {
    let startedAt = 0;
    let first: number | null = null;
    const stub = await startStubEndpoint({
      handler: () => openaiText("ok"),
      onRequest: (request) => {
        if (request.path.endsWith("/chat/completions")) first ??= performance.now() - startedAt;
      },
    });
    const result = await runNex(
      ["resume", "--last", ...endpointArgs(stub.url, journal.dataDir), "continue"],
      {
        cwd: journal.workspace,
        onSpawn: (t) => {
          startedAt = t;
        },
      },
    );
    await stub.close();
    restoreJournal(journal);
    if (result.code !== 0 || first === null) {
      throw new Error(`nex resume exited ${result.code}: ${result.stderr.slice(-1000)}`);
    }
    const fit = result.stderr.split("\n").find((l) => l.includes("Journal ha")) ?? "";
    all.push({
      ms: first,
      cpuMs: result.cpuMs,
      maxRssKb: result.maxRssKb,
      detail: `whole run ${result.wallMs.toFixed(0)} ms wall; ${fit.replace(/^nex: /, "").trim()}`,
    });
  }
  return medianOf(all);
}

function flat(base: Measure, m: Measure): boolean {
  return (
    m.cpuMs <= base.cpuMs * TIME_SLACK + TIME_SLACK_MS && m.maxRssKb - base.maxRssKb <= RSS_SLACK_KB
  );
}

/** Resume figures for journals of 1k, 10k, 100k and (unless quick) 1M messages. */
export async function benchResume(options: { quick: boolean }): Promise<Figure[]> {
  say(`\n## Resume (window ${WINDOW}; synthetic journals, kept for later runs in ${cacheDir})`);
  const counts = options.quick ? [1_000, 10_000, 100_000] : [1_000, 10_000, 100_000, 1_000_000];
  const repeats = options.quick ? 1 : 3;
  const rows: { count: number; loaded: Measure; e2e: Measure }[] = [];
  for (const count of counts) {
    const journal = ensureJournal(count);
    say(
      `${count.toLocaleString("en-US")} messages: journal ${mb(journal.bytes / 1024)}` +
        (journal.built ? ` (built in ${(journal.buildMs / 1000).toFixed(1)} s)` : " (reused)"),
    );
    if (rows.length === 0) await endToEnd(journal, 1); // fills the compile cache
    const loaded = await inProcess(journal, repeats);
    say(
      `  loadForResume: ${loaded.ms.toFixed(1)} ms, ${loaded.cpuMs.toFixed(0)} ms CPU, peak RSS ${mb(loaded.maxRssKb)}; ${loaded.detail}`,
    );
    const e2e = await endToEnd(journal, repeats);
    say(
      `  nex resume --last → first request: ${e2e.ms.toFixed(0)} ms, ${e2e.cpuMs.toFixed(0)} ms CPU, peak RSS ${mb(e2e.maxRssKb)}; ${e2e.detail}`,
    );
    rows.push({ count, loaded, e2e });
  }
  const base = rows[0] as (typeof rows)[number];
  const label = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`);
  const figures: Figure[] = [];
  for (const kind of ["loaded", "e2e"] as const) {
    for (const row of rows) {
      const m = row[kind];
      const isBase = row === base;
      figures.push({
        section: "resume",
        name: `${label(row.count)} messages, ${kind === "loaded" ? "loadForResume" : "nex resume --last"}`,
        value:
          kind === "loaded"
            ? `${m.cpuMs.toFixed(0)} ms CPU (${m.ms.toFixed(0)} ms wall), peak RSS ${mb(m.maxRssKb)}`
            : `${m.cpuMs.toFixed(0)} ms CPU (1st request at ${m.ms.toFixed(0)} ms), peak RSS ${mb(m.maxRssKb)}`,
        goal: isBase
          ? "(the base of 'flat')"
          : `flat: CPU ≤ 1k × ${TIME_SLACK} + ${TIME_SLACK_MS} ms, RSS ≤ 1k + 16 MB`,
        verdict: isBase ? "info" : verdict(flat(base[kind], m)),
      });
    }
  }
  return figures;
}

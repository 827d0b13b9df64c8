// Resume cost against journal length: builds synthetic journals of 1k, 10k and 100k messages and times
// `loadForResume` into a 32k window. Prints figures only. Run: node bench/resume.ts
import { rmSync, statSync } from "node:fs";
import { contextBudget } from "../src/session/budget.ts";
import { listSessions } from "../src/session/catalog.ts";
import { createJournal, openJournal } from "../src/session/journal.ts";
import { describeFit, loadForResume } from "../src/session/replay.ts";
import { createTokenEstimator } from "../src/session/tokens.ts";
import { conversation, tempDir } from "../test/session/fixtures.ts";

const WINDOW = 32768;
const SYSTEM_AND_TOOLS = 2500;
const dataDir = tempDir("nex-bench-resume-");

function time<T>(fn: () => T): { value: T; ms: number; cpuMs: number } {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = fn();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { value, ms, cpuMs: (used.user + used.system) / 1000 };
}

async function timeAsync<T>(
  fn: () => Promise<T>,
): Promise<{ value: T; ms: number; cpuMs: number }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await fn();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { value, ms, cpuMs: (used.user + used.system) / 1000 };
}

const fmt = (n: number) => n.toFixed(1).padStart(8);
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

const load = time(() => createTokenEstimator().countText("warm up the tokenizer"));
console.log(
  `tokenizer (cl100k_base) lazy load: ${load.ms.toFixed(0)} ms (paid once, on first resume or compaction)`,
);

const budgetTokens = contextBudget({ window: WINDOW }).promptBudget - SYSTEM_AND_TOOLS;
console.log(`window ${WINDOW}: message budget ${budgetTokens} tokens\n`);

for (const count of [1_000, 10_000, 100_000]) {
  const messages = conversation(count, count);
  const journal = await createJournal(
    dataDir,
    {
      workspace: "/bench",
      provider: "openai-compatible",
      model: "qwen3-coder",
      baseUrl: "http://gpu01:8000/v1",
    },
    { sync: "never" },
  );
  const append = time(() => {
    messages.forEach((m, i) => {
      journal.appendMessage(m);
      if (i % 50 === 0) {
        journal.appendLedger({
          path: `/bench/f${i % 40}.ts`,
          hash: String(i),
          mtimeMs: i,
          size: i,
          complete: true,
        });
      }
    });
  });
  journal.close();
  const size = statSync(journal.path).size;
  const resume = await timeAsync(() =>
    loadForResume(journal.path, { budgetTokens, estimator: createTokenEstimator() }),
  );
  const r = resume.value;
  const reopen = await timeAsync(async () =>
    (await openJournal(journal.path, { sync: "never", ledger: r.ledger })).close(),
  );
  console.log(`${count.toLocaleString("en-US")} messages, journal ${mb(size)}`);
  console.log(
    `  append: ${fmt(append.ms)} ms total, ${((append.ms / count) * 1000).toFixed(1)} µs per message (${((append.ms / count) * 200).toFixed(2)} ms per 200)`,
  );
  console.log(
    `  resume: ${fmt(resume.ms)} ms wall, ${fmt(resume.cpuMs)} ms CPU, read ${(r.bytesRead / 1024).toFixed(0)} KB (${((r.bytesRead / size) * 100).toFixed(2)}% of the file), kept ${r.keptMessages}, ledger ${r.ledger.length} paths`,
  );
  console.log(`  reopen for append: ${fmt(reopen.ms)} ms`);
  console.log(`  ${describeFit(r, { model: "qwen3-coder", window: WINDOW })}\n`);
}

{
  // The hot path of a 200-turn session: user prompt, assistant call, tool result, fsync at each turn end.
  const journal = await createJournal(
    dataDir,
    {
      workspace: "/bench",
      provider: "openai-compatible",
      model: "qwen3-coder",
      baseUrl: "http://gpu01:8000/v1",
    },
    { sync: "turn" },
  );
  const turns = conversation(600, 42);
  const run = time(() => {
    for (const m of turns) {
      journal.appendMessage(m);
      if (m.type !== "assistant") journal.syncTurn();
    }
  });
  journal.close();
  console.log(
    `200 turns (600 messages) with syncTurn (fsync) at each turn end: ${run.ms.toFixed(1)} ms wall, ${run.cpuMs.toFixed(1)} ms CPU\n`,
  );
}

const listing = await timeAsync(() => listSessions(dataDir));
console.log(`listSessions over ${listing.value.length} journals: ${listing.ms.toFixed(1)} ms`);
rmSync(dataDir, { recursive: true, force: true });

// Child process of the resume benchmark (one journal per process, so peak RSS is its own):
//   node bench/resume-probe.ts <journal path> <budget tokens>
// Prints one JSON line: loadForResume's time, CPU, bytes read and what it kept, and the process's
// peak RSS. The tokenizer is loaded before the timer (it is paid once per process, and reported apart).
import { loadForResume } from "../src/session/replay.ts";
import { createTokenEstimator } from "../src/session/tokens.ts";

const [path, budget] = process.argv.slice(2);
const estimator = createTokenEstimator();
const t0 = performance.now();
estimator.countText("warm up the tokenizer");
const tokenizerMs = performance.now() - t0;
const rssBefore = process.memoryUsage().rss;
const cpu = process.cpuUsage();
const start = performance.now();
const result = await loadForResume(path as string, { budgetTokens: Number(budget), estimator });
const ms = performance.now() - start;
const used = process.cpuUsage(cpu);
console.log(
  JSON.stringify({
    ms,
    cpuMs: (used.user + used.system) / 1000,
    tokenizerMs,
    rssBeforeKb: Math.round(rssBefore / 1024),
    maxRssKb: process.resourceUsage().maxRSS,
    bytesRead: result.bytesRead,
    keptMessages: result.keptMessages,
    totalMessages: result.totalMessages,
    warnings: result.warnings.length,
  }),
);

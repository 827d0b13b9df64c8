// Preloaded into nex by the benchmarks (NODE_OPTIONS="--import <this file>"): when the process exits it
// writes its own CPU time, peak RSS and live heap after a full GC to NEX_BENCH_USAGE_DIR/<pid>.json.
// Plain JavaScript, so it also loads in an old Node.js that bin/nex.js re-executes from; each process of
// a re-exec writes its own file. Reading the figures at exit avoids sampling: peak RSS is the kernel's
// high-water mark, not a poll that could miss a spike.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

const dir = process.env.NEX_BENCH_USAGE_DIR;
if (dir) {
  process.on("exit", () => {
    const usage = process.resourceUsage();
    // Retained heap after a full collection: the figure that grows with a leak, unlike peak RSS,
    // which also depends on when the collector happened to run.
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc");
    gc();
    const heapAfterGc = process.memoryUsage().heapUsed;
    const record = {
      pid: process.pid,
      ppid: process.ppid,
      node: process.version,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      userMs: usage.userCPUTime / 1000,
      systemMs: usage.systemCPUTime / 1000,
      fsWrites: usage.fsWrite,
      voluntarySwitches: usage.voluntaryContextSwitches,
      maxRssKb: usage.maxRSS,
      heapAfterGcKb: Math.round(heapAfterGc / 1024),
    };
    writeFileSync(join(dir, `${process.pid}.json`), `${JSON.stringify(record)}\n`);
  });
}

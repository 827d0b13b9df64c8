// The processes a test started, found by a marker in their command line.
import { readdirSync, readFileSync } from "node:fs";
import { patienceMs } from "./until.ts";

/** Live processes (not zombies) whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const line = readFileSync(`/proc/${name}/cmdline`, "latin1");
      const state = readFileSync(`/proc/${name}/stat`, "latin1");
      if (line.includes(marker) && !/^[ZX]/.test(state.slice(state.lastIndexOf(")") + 2)))
        found.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return found;
}

/**
 * The pid a test's process wrote to `file` (`echo $$ > file`), once the whole line is there: the
 * shell creates the file before it writes, and an empty file read as pid 0 would name the test's own
 * process group, which `kill(0, 0)` always finds alive.
 */
export async function waitForPidFile(file: string, timeoutMs = patienceMs): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {
      // Not written yet.
    }
    const pid = /^(\d+)\n/.exec(text)?.[1];
    if (pid !== undefined && Number(pid) > 0) return Number(pid);
    if (Date.now() > until) throw new Error(`${file} held no pid after ${timeoutMs} ms: "${text}"`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

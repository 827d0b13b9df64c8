// The processes a test started, found by a marker in their command line.
import { readdirSync, readFileSync } from "node:fs";

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

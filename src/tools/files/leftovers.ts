// A write killed mid-way (SIGKILL, power loss) leaves its hidden temporary file beside the target:
// `.name.nex-<12 hex>.tmp`, or `.parts` for a write in parts. Nothing can finish such a file (the
// state that knew it died with the process), so the next session that writes in that directory
// removes it once it is clearly abandoned: old enough that no live write of any nex process can own it.
import { lstatSync, readdirSync, unlinkSync } from "node:fs";
import { join } from "node:path";

const LEFTOVER = /^\.[^/]+\.nex-[0-9a-f]{12}\.(tmp|parts)$/;

/** How old (since the last write to it) a leftover must be before it is removed. */
export const ABANDONED_AFTER_MS = {
  // A whole-file write finishes within seconds, even a large one.
  tmp: 10 * 60_000,
  // Parts are staged over several model turns; a day is far beyond any live session's staging.
  parts: 24 * 60 * 60_000,
};

/** Removes abandoned temporary files, looking at each directory once per session. */
export interface LeftoverSweeper {
  /** Sweeps `dir` if this session has not yet; returns the names it removed. */
  sweep(dir: string): string[];
}

export function createLeftoverSweeper(now: () => number = Date.now): LeftoverSweeper {
  const swept = new Set<string>();
  return {
    sweep(dir) {
      if (swept.has(dir)) return [];
      swept.add(dir);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        return [];
      }
      const removed: string[] = [];
      for (const name of names) {
        const kind = LEFTOVER.exec(name)?.[1] as "tmp" | "parts" | undefined;
        if (!kind) continue;
        const path = join(dir, name);
        try {
          const info = lstatSync(path);
          if (!info.isFile() || now() - info.mtimeMs < ABANDONED_AFTER_MS[kind]) continue;
          unlinkSync(path);
          removed.push(name);
        } catch {
          // Gone already, or not ours to remove: either way nothing to do.
        }
      }
      return removed;
    },
  };
}

// `/proc/<pid>/environ` shows the environment block a process started with, whatever it did to its
// variables since (`delete process.env.X` changes a copy). Any command nex runs outside a sandbox, as
// the same user, could read nex's key there. On Linux a process may write its own memory through
// `/proc/self/mem`: the secrets' bytes in that block are overwritten with `*`, so the file shows
// `OPENAI_API_KEY=****`. No native code, one small read and a few writes (well under a millisecond).
import { closeSync, openSync, readFileSync, readSync, writeSync } from "node:fs";

/** A variable of the original environment and the part of its value to hide (the whole value, or a password in it). */
export interface ConcealedValue {
  name: string;
  secret: string;
}

/**
 * Overwrites `secret` within `NAME=...` entries of this process's original environment block with
 * `*`. Returns how many entries changed. Best effort: off Linux, or when `/proc` is not there or
 * refuses, nothing changes. Afterwards `process.env` shows the stars too (it reads the same block):
 * callers take what they need from the environment first.
 */
export function concealInProcEnviron(values: readonly ConcealedValue[]): number {
  if (process.platform !== "linux" || values.length === 0) return 0;
  const range = environRange();
  if (!range) return 0;
  let fd: number;
  try {
    fd = openSync("/proc/self/mem", "r+");
  } catch {
    return 0;
  }
  let changed = 0;
  try {
    const block = Buffer.alloc(range.end - range.start);
    if (readSync(fd, block, 0, block.length, range.start) !== block.length) return 0;
    for (const { name, secret } of values) {
      if (secret === "") continue;
      const hidden = Buffer.from(secret, "utf8");
      const prefix = Buffer.from(`${name}=`, "utf8");
      // Entries start the block or follow a NUL; each one ends with a NUL.
      for (let at = 0; at < block.length; ) {
        const end = block.indexOf(0, at);
        const entryEnd = end < 0 ? block.length : end;
        const entry = block.subarray(at, entryEnd);
        if (entry.subarray(0, prefix.length).equals(prefix)) {
          let from = entry.indexOf(hidden, prefix.length);
          while (from >= 0) {
            const stars = Buffer.alloc(hidden.length, "*");
            writeSync(fd, stars, 0, stars.length, range.start + at + from);
            stars.copy(entry, from);
            changed += 1;
            from = entry.indexOf(hidden, from + hidden.length);
          }
        }
        at = entryEnd + 1;
      }
    }
  } catch {
    // What was overwritten stays overwritten; the rest is left as it was.
  } finally {
    closeSync(fd);
  }
  return changed;
}

/** `env_start` and `env_end` (fields 50 and 51 of `/proc/self/stat`, Linux 3.5 and later). */
function environRange(): { start: number; end: number } | null {
  try {
    const stat = readFileSync("/proc/self/stat", "utf8");
    // The command name (field 2) may hold spaces and parentheses: fields are counted after its `)`.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const start = Number(fields[50 - 3]);
    const end = Number(fields[51 - 3]);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start <= 0) return null;
    if (end <= start || end - start > 4 * 1024 * 1024) return null;
    return { start, end };
  } catch {
    return null;
  }
}

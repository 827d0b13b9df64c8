// Searching named files with JavaScript's RegExp, when ripgrep is not there.
import { join } from "node:path";
import type { AddMatch, GrepResult } from "./grep-result.ts";
import { type FileMatches, searchFile } from "./line-search.ts";
import type { SearchPattern } from "./pattern.ts";
import { searchInWorker } from "./worker-search.ts";

let linearFallback = false;

function compile(source: string, flags: string): RegExp {
  // The model's pattern runs on the event loop: a catastrophic one (`(a+)+$`) would freeze nex, past
  // every timeout and Ctrl-C. V8 then switches such a search to its linear-time engine instead.
  if (!linearFallback) {
    const v8 = process.getBuiltinModule("node:v8") as typeof import("node:v8");
    v8.setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
    linearFallback = true;
  }
  return new RegExp(source, flags);
}

/** Searches `paths` (relative to `root`, or absolute) on the event loop or in a worker. */
export async function jsSearch(
  root: string,
  pattern: SearchPattern,
  paths: string[],
  signal: AbortSignal,
  add: AddMatch,
  result: GrepResult,
): Promise<void> {
  const take = (path: string, found: FileMatches): void => {
    if (found.type === "unreadable") result.unsearched.push({ path, reason: found.reason });
    else if (found.type === "binary") result.binary.push(path);
    else for (const m of found.lines) add(path, m.line, m.text);
  };
  const abs = (path: string): string => (path.startsWith("/") ? path : join(root, path));
  if (pattern.flags === "") {
    // V8 runs such a pattern in linear time when it backtracks too much: safe on the event loop.
    const regex = compile(pattern.js, pattern.flags);
    for (const path of paths) {
      signal.throwIfAborted();
      take(path, await searchFile(abs(path), regex));
    }
    return;
  }
  await searchInWorker(pattern, paths, abs, signal, take);
}

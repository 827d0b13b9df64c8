import type { Minimatch, MinimatchOptions } from "minimatch";

// Node's `path.matchesGlob` is minimatch with these options, but it is experimental on Node.js 22 (it
// prints an ExperimentalWarning on first use, mid-frame in the chat): the library itself matches the
// same way on every Node.js nex supports, and prints nothing.
const OPTIONS: MinimatchOptions = {
  nocase: process.platform === "win32" || process.platform === "darwin",
  windowsPathsNoEscape: true,
  nonegate: true,
  nocomment: true,
  optimizationLevel: 2,
  nocaseMagicOnly: true,
};

// minimatch (eight modules) loads when something may match a real glob: a search, a command checked
// against the rules, an edit checked against trusted commands' files. A plain name is matched
// without it, which is all a session of file edits with no rules ever asks.
let matcher: typeof import("minimatch") | null = null;

/** Loads the glob matcher; a caller that may match a pattern with glob characters awaits it first. */
export async function loadGlobMatcher(): Promise<void> {
  matcher ??= await import("minimatch");
}

// Patterns come from a handful of rules and tool calls; compiled ones are kept, a bounded few.
const compiled = new Map<string, Minimatch>();
const KEPT = 256;

// Characters that make a pattern more than a name (minimatch's magic, its extglobs, its escape).
const MAGIC = /[*?[\]{}()!+@\\/]/;

/** Whether `path` matches the glob `pattern`, as `path.matchesGlob` decides. */
export function matchesGlob(path: string, pattern: string): boolean {
  // One plain name against another (`.bashrc`, a file's base name): minimatch would compare them
  // as they are; the guards ask this for every edit, so it is answered without the matcher.
  if (
    !MAGIC.test(pattern) &&
    !path.includes("/") &&
    pattern !== "" &&
    pattern !== "." &&
    pattern !== ".."
  )
    return OPTIONS.nocase ? path.toLowerCase() === pattern.toLowerCase() : path === pattern;
  if (!matcher)
    throw new Error(
      `matchesGlob(${JSON.stringify(pattern)}) before loadGlobMatcher(): a bug in nex`,
    );
  let glob = compiled.get(pattern);
  if (!glob) {
    glob = new matcher.Minimatch(pattern, OPTIONS);
    if (compiled.size >= KEPT) compiled.delete(compiled.keys().next().value as string);
    compiled.set(pattern, glob);
  }
  return glob.match(path);
}

import type { Dirent } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import type { Ignore } from "ignore";

/** Directories never searched, whatever .gitignore says. */
export const ALWAYS_SKIPPED = new Set([".git", "node_modules"]);

interface Rules {
  /** Directory of the .gitignore, relative to the root ("" for the root). */
  base: string;
  rules: Ignore;
}

async function rulesOf(root: string, dir: string): Promise<Rules | null> {
  try {
    const text = await readFile(join(root, dir, ".gitignore"), "utf8");
    // Loaded on first use: only searches read .gitignore files.
    const { default: ignore } = await import("ignore");
    return { base: dir, rules: ignore().add(text) };
  } catch {
    return null;
  }
}

function ignored(stack: Rules[], path: string, isDir: boolean): boolean {
  for (const { base, rules } of stack) {
    const rel = base === "" ? path : path.slice(base.length + 1);
    if (rel.length === 0) continue;
    if (rules.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

function isNexTemp(name: string): boolean {
  return (
    name.startsWith(".") &&
    (name.endsWith(".nex-parts") || /\.nex-[0-9a-f]+\.(tmp|parts)$/.test(name))
  );
}

/**
 * Yields the files under `start` (absolute, inside `root`) as paths relative to `root`, depth first with
 * names in order, skipping `.git`, `node_modules`, nex's own temporary files and what .gitignore files
 * (of `start` and every directory above it up to `root`) exclude.
 */
export async function* walkFiles(
  root: string,
  start: string,
  signal: AbortSignal,
): AsyncGenerator<string> {
  const startRel = relative(root, start).split(sep).join("/");
  const stack: Rules[] = [];
  const ancestors =
    startRel === ""
      ? [""]
      : ["", ...startRel.split("/").map((_, i, all) => all.slice(0, i + 1).join("/"))];
  for (const dir of ancestors) {
    if (dir !== "" && ignored(stack, dir, true)) return;
    const rules = await rulesOf(root, dir);
    if (rules) stack.push(rules);
  }
  yield* walkDir(root, startRel, stack, signal);
}

async function* walkDir(
  root: string,
  dir: string,
  stack: Rules[],
  signal: AbortSignal,
): AsyncGenerator<string> {
  signal.throwIfAborted();
  let entries: Dirent[];
  try {
    entries = await readdir(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    if (ALWAYS_SKIPPED.has(entry.name) || isNexTemp(entry.name)) continue;
    const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (ignored(stack, path, true)) continue;
      const rules = await rulesOf(root, path);
      yield* walkDir(root, path, rules ? [...stack, rules] : stack, signal);
    } else if (entry.isFile()) {
      // Symlinks are not followed (as with ripgrep): one could lead outside the workspace.
      if (!ignored(stack, path, false)) yield path;
    }
  }
}

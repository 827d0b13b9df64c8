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

// The ignore files ripgrep reads outside a git repository, lowest precedence first.
const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"];

async function rulesOf(root: string, dir: string): Promise<Rules | null> {
  let text = "";
  for (const name of IGNORE_FILES) {
    text += await readFile(join(root, dir, name), "utf8").then(
      (content) => `${content}\n`,
      () => "",
    );
  }
  if (text === "") return null;
  // Loaded on first use: only searches read ignore files.
  const { default: ignore } = await import("ignore");
  return { base: dir, rules: ignore().add(text) };
}

function ignored(stack: Rules[], path: string, isDir: boolean): boolean {
  for (const { base, rules } of stack) {
    const rel = base === "" ? path : path.slice(base.length + 1);
    if (rel.length === 0) continue;
    if (rules.ignores(isDir ? `${rel}/` : rel)) return true;
  }
  return false;
}

/** A file system error as a short reason: "permission denied", not a stack. */
export function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ENOENT") return "it vanished during the search";
  return (error as Error).message;
}

export function isNexTemp(name: string): boolean {
  return (
    name.startsWith(".") &&
    (name.endsWith(".nex-parts") || /\.nex-[0-9a-f]+\.(tmp|parts)$/.test(name))
  );
}

/** A file the walk found, or a directory or name it could not read (said, never skipped in silence). */
export type Walked =
  | { type: "file"; path: string }
  | { type: "unreadable"; path: string; reason: string };

/** A name as text, or null when its bytes are not UTF-8 (no tool call could name it). */
export function nameText(bytes: Buffer): string | null {
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : null;
}

/**
 * Yields the files under `start` (absolute, inside `root`) as paths relative to `root`, depth first with
 * names in order, skipping `.git`, `node_modules`, nex's own temporary files and what ignore files
 * (.gitignore, .ignore, .rgignore of `start` and every directory above it up to `root`) exclude, as
 * ripgrep does outside a git repository.
 */
export async function* walkFiles(
  root: string,
  start: string,
  signal: AbortSignal,
): AsyncGenerator<Walked> {
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
): AsyncGenerator<Walked> {
  signal.throwIfAborted();
  let entries: Dirent<Buffer>[];
  try {
    entries = await readdir(join(root, dir), { withFileTypes: true, encoding: "buffer" });
  } catch (error) {
    yield { type: "unreadable", path: dir === "" ? "." : dir, reason: reasonOf(error) };
    return;
  }
  entries.sort((a, b) => Buffer.compare(a.name, b.name));
  for (const entry of entries) {
    const name = nameText(entry.name);
    if (name === null) {
      const lossy = entry.name.toString("utf8");
      yield {
        type: "unreadable",
        path: dir === "" ? lossy : `${dir}/${lossy}`,
        reason: "its name is not valid UTF-8",
      };
      continue;
    }
    if (ALWAYS_SKIPPED.has(name) || isNexTemp(name)) continue;
    const path = dir === "" ? name : `${dir}/${name}`;
    if (entry.isDirectory()) {
      if (ignored(stack, path, true)) continue;
      const rules = await rulesOf(root, path);
      yield* walkDir(root, path, rules ? [...stack, rules] : stack, signal);
    } else if (entry.isFile()) {
      // Symlinks are not followed (as with ripgrep): one could lead outside the workspace.
      if (!ignored(stack, path, false)) yield { type: "file", path };
    }
  }
}

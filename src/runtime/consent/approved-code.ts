// What an approval of a project hook, MCP server or command covers: not only its text, but every file
// of the workspace it executes. `bash .claude/hooks/check.sh` runs check.sh and whatever check.sh
// sources; a pull that changes only `lib.sh` beside it must ask again. So the digest takes every
// workspace file a command names, the whole folder of each (unless that folder is the workspace's
// root), the files those files name in turn, and the manifest a runner reads (`npm run` reads
// package.json, `make` the Makefile). All of it bounded: a huge tree is approved by its listing.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** Most files one approval hashes; past it the rest are named by size and time. */
const MAX_FILES = 400;
/** Largest file whose content is hashed; a larger one is approved by its size and time. */
const FILE_LIMIT = 4 * 2 ** 20;
/** Largest file read for the paths it names in turn. */
const SCAN_LIMIT = 256 * 1024;

/** Files a runner reads without naming them: its first word → the manifests in the workspace's root. */
const MANIFESTS: Record<string, string[]> = {
  npm: ["package.json"],
  npx: ["package.json"],
  pnpm: ["package.json"],
  yarn: ["package.json"],
  bun: ["package.json"],
  make: ["Makefile", "makefile", "GNUmakefile"],
  just: ["justfile", "Justfile"],
  task: ["Taskfile.yml", "Taskfile.yaml"],
};

function wordsOf(text: string, workspace: string): string[] {
  return text
    .replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, workspace)
    .replace(/["']/g, "")
    .split(/[\s;&|()<>`=,]+/)
    .filter((word) => word !== "" && word.length < 4096);
}

function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root + sep);
}

/**
 * The workspace files `commands` execute, each with a digest of its content (relative path → digest,
 * sorted): what approving them approves besides their text.
 */
export function approvedCode(commands: readonly string[], workspace: string): [string, string][] {
  let root: string;
  try {
    root = realpathSync(workspace);
  } catch {
    return [];
  }
  const out = new Map<string, string>();
  const queue: { word: string; base: string; named?: boolean }[] = [];
  for (const command of commands)
    for (const word of wordsOf(command, workspace)) {
      queue.push({ word, base: workspace, named: true });
      for (const manifest of MANIFESTS[word] ?? []) queue.push({ word: manifest, base: workspace });
    }
  const seenDirs = new Set<string>();
  const add = (real: string): boolean => {
    if (out.has(real)) return false;
    if (out.size >= MAX_FILES) {
      out.set("(more files)", "left out: the approval names the first ones only");
      return false;
    }
    out.set(real, fileDigest(real));
    return true;
  };
  for (let i = 0; i < queue.length && out.size < MAX_FILES; i++) {
    const { word, base, named } = queue[i] as { word: string; base: string; named?: boolean };
    const real = resolveWord(word, base, root);
    // A script the command names that is not there yet is approved as missing: one created later
    // (by a pull, or by a command) is new code and asks again.
    if (!real && named && /[./]/.test(word)) {
      const lexical = join(
        root,
        relative(workspace, isAbsolute(word) ? word : resolve(base, word)),
      );
      if (within(lexical, root) && lexical !== root) out.set(lexical, "missing");
      continue;
    }
    if (real && !within(real, root)) {
      // A link in the workspace that leads out: what it leads to runs too (a folder a command can
      // write, say), so its content is part of the approval.
      const lexical = isAbsolute(word) ? word : resolve(base, word);
      const inside = [root, resolve(workspace)].find((top) => within(lexical, top));
      if (inside && out.size < MAX_FILES)
        out.set(`${join(root, relative(inside, lexical))} (a link to ${real})`, fileDigest(real));
      continue;
    }
    if (!real || real === root) continue;
    if (!add(real)) continue;
    const folder = dirname(real);
    if (folder !== root && !seenDirs.has(folder)) {
      seenDirs.add(folder);
      for (const file of filesUnder(folder, MAX_FILES)) queue.push({ word: file, base: root });
    }
    for (const named of namedIn(real, root)) queue.push({ word: named, base: dirname(real) });
  }
  return [...out.entries()]
    .map(([path, digest]): [string, string] => [
      path.startsWith(root + sep) ? path.slice(root.length + 1) : path,
      digest,
    ])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** One hash of `approvedCode`'s listing with `text` (the approved thing's own words). */
export function approvalHash(text: string, code: readonly [string, string][]): string {
  return createHash("sha256")
    .update(JSON.stringify(code.length === 0 ? [text] : [text, code]))
    .digest("hex");
}

/**
 * The workspace file a word names: as written, or, for `"$(dirname "$0")/lib.sh"` and
 * `${DIR}/lib.sh` (a variable's value unknown), the rest of the path from the naming file's folder.
 */
function resolveWord(word: string, base: string, root: string): string | null {
  const direct = existingFile(isAbsolute(word) ? word : resolve(base, word));
  if (direct && within(direct, root)) return direct;
  const rest = word.replace(/^(?:\$\{?\w+\}?|\$\d)/, "");
  if (!rest.startsWith("/") || rest === "/") return direct;
  return existingFile(resolve(base, `.${rest}`)) ?? direct;
}

function existingFile(path: string): string | null {
  try {
    const real = realpathSync(path);
    return statSync(real).isFile() ? real : null;
  } catch {
    return null;
  }
}

function filesUnder(folder: string, limit: number): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 8 || found.length >= limit) return;
    let entries: import("node:fs").Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (found.length >= limit) return;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== ".git" && entry.name !== "node_modules") walk(path, depth + 1);
      } else found.push(path);
    }
  };
  walk(folder, 0);
  return found;
}

/** The words of a small text file that could be paths (`source lib.sh`, `. ./env.sh`, `python x.py`). */
function namedIn(path: string, root: string): string[] {
  try {
    const stat = statSync(path);
    if (stat.size > SCAN_LIMIT) return [];
    const text = readFileSync(path, "utf8");
    if (text.includes("\u0000")) return [];
    return wordsOf(text, root).filter((word) => /[./]/.test(word));
  } catch {
    return [];
  }
}

function fileDigest(path: string): string {
  try {
    const stat = statSync(path);
    if (stat.size > FILE_LIMIT) return `size ${stat.size}, changed ${stat.mtimeMs}`;
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return "unreadable";
  }
}

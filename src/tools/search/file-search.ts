import { access, constants, open, readFile, stat } from "node:fs/promises";
import { basename, delimiter, join } from "node:path";
import { matchesGlob } from "../files/index.ts";
import { ToolFailure } from "../tool-failure.ts";
import { walkFiles } from "./file-walk.ts";

// Loaded on first use rather than at start-up: most sessions start no process for a while, if ever.
const childProcess = () => process.getBuiltinModule("node:child_process");
const readline = () => process.getBuiltinModule("node:readline");

/** Files larger than this are not searched. */
export const MAX_SEARCH_FILE_BYTES = 10 * 2 ** 20;

/** One matching line. */
export interface GrepMatch {
  /** Relative to the workspace root (absolute when outside it). */
  path: string;
  line: number;
  text: string;
}

/** What a search found: the first `keep` matches and how many there were in all. */
export interface GrepResult {
  matches: GrepMatch[];
  total: number;
  files: number;
}

/** A search request. `dir` is absolute and already checked by the workspace guard. */
export interface GrepQuery {
  pattern: string;
  dir: string;
  glob?: string;
  ignoreCase: boolean;
  keep: number;
  signal: AbortSignal;
}

/** Finds files and text, with ripgrep when it is on PATH and a JavaScript walk otherwise. */
export interface FileSearch {
  backend(): Promise<"ripgrep" | "javascript">;
  /** Every non-ignored file under `dir`, relative to the workspace root. */
  listFiles(dir: string, signal: AbortSignal): Promise<string[]>;
  grep(query: GrepQuery): Promise<GrepResult>;
}

async function findOnPath(
  name: string,
  env: Record<string, string | undefined>,
): Promise<string | null> {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      if ((await stat(candidate)).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

const RG_BASE = [
  "--no-config",
  "--hidden",
  "--no-require-git",
  "--sort",
  "path",
  "-g",
  "!.git",
  "-g",
  "!node_modules",
  "-g",
  "!.*.nex-parts",
  "-g",
  "!.*.nex-*.tmp",
  "-g",
  "!.*.nex-*.parts",
];

function relativeTo(root: string, dir: string): string | null {
  if (dir === root) return null;
  return dir.startsWith(`${root}/`) ? dir.slice(root.length + 1) : dir;
}

/**
 * Whether a file matches a glob: a pattern without `/` matches the file name at any depth,
 * one with `/` matches the path relative to the searched directory.
 */
export function globMatches(glob: string, path: string, dirRel: string | null): boolean {
  if (!glob.includes("/")) return matchesGlob(basename(path), glob);
  const rel = dirRel && path.startsWith(`${dirRel}/`) ? path.slice(dirRel.length + 1) : path;
  return matchesGlob(rel, glob);
}

// The JavaScript walk of a directory, with paths as ripgrep prints them: relative to the root, or absolute outside it.
async function* walk(root: string, dir: string, signal: AbortSignal): AsyncGenerator<string> {
  const inside = dir === root || dir.startsWith(`${root}/`);
  for await (const path of walkFiles(inside ? root : dir, dir, signal))
    yield inside ? path : join(dir, path);
}

async function isBinaryFile(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

let linearFallback = false;

function compile(pattern: string, ignoreCase: boolean): RegExp {
  // The model's pattern runs on the event loop: a catastrophic one (`(a+)+$`) would freeze nex, past
  // every timeout and Ctrl-C. V8 then switches such a search to its linear-time engine instead.
  if (!linearFallback) {
    const v8 = process.getBuiltinModule("node:v8") as typeof import("node:v8");
    v8.setFlagsFromString("--enable-experimental-regexp-engine-on-excessive-backtracks");
    linearFallback = true;
  }
  try {
    return new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    throw new ToolFailure(
      "invalid_arguments",
      `The pattern is not a valid regular expression: ${(error as Error).message}. Fix it and search again.`,
    );
  }
}

/** Creates the search for one workspace; whether `rg` is on PATH is checked once and cached. */
export function createFileSearch(
  root: string,
  env: Record<string, string | undefined>,
  useRipgrep: boolean,
  /** Directories (relative to the root) holding nex's own data: never listed or searched. */
  privateDirs: string[] = [],
): FileSearch {
  const shown = (path: string): boolean =>
    !privateDirs.some((dir) => path === dir || path.startsWith(`${dir}/`));
  let rg: Promise<string | null> | null = null;
  const ripgrep = (): Promise<string | null> => {
    rg ??= useRipgrep ? findOnPath("rg", env) : Promise.resolve(null);
    return rg;
  };

  const runRg = async (
    binary: string,
    args: string[],
    signal: AbortSignal,
    onLine: (line: string) => void,
  ): Promise<void> => {
    const child = childProcess().spawn(binary, args, {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      signal,
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString("utf8");
    });
    // Settled from the start, never rejected: an abort's error arrives while the lines are still read,
    // and a rejection nobody awaits yet would end the whole process.
    let failed: Error | null = null;
    const closed = new Promise<number | null>((resolve) => {
      child.on("error", (error) => {
        failed = error;
        resolve(null);
      });
      child.on("close", (code) => resolve(code));
    });
    try {
      for await (const line of readline().createInterface({ input: child.stdout })) onLine(line);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
    const code = await closed;
    signal.throwIfAborted();
    if (failed) throw failed;
    if (code === 2 && /regex|parse error/i.test(stderr)) {
      throw new ToolFailure(
        "invalid_arguments",
        `The pattern is not a valid regular expression: ${stderr.trim().split("\n").slice(-3).join(" ")}. Fix it and search again.`,
      );
    }
    if (code !== 0 && code !== 1 && code !== 2)
      throw new Error(`ripgrep exited with ${code}: ${stderr.trim()}`);
  };

  return {
    backend: async () => ((await ripgrep()) ? "ripgrep" : "javascript"),
    async listFiles(dir, signal) {
      const binary = await ripgrep();
      const files: string[] = [];
      if (binary) {
        const rel = relativeTo(root, dir);
        await runRg(
          binary,
          ["--files", ...RG_BASE, ...(rel ? ["--", rel] : [])],
          signal,
          (line) => {
            if (shown(line)) files.push(line);
          },
        );
      } else {
        for await (const path of walk(root, dir, signal)) if (shown(path)) files.push(path);
      }
      return files.sort();
    },
    async grep(query) {
      const { pattern, dir, glob, ignoreCase, keep, signal } = query;
      const binary = await ripgrep();
      const result: GrepResult = { matches: [], total: 0, files: 0 };
      const add = (path: string, line: number, text: string, newFile: boolean): void => {
        result.total += 1;
        if (newFile) result.files += 1;
        if (result.matches.length < keep)
          result.matches.push({ path, line, text: text.replace(/\r?\n$/, "") });
      };
      const rel = relativeTo(root, dir);
      const wanted = (path: string): boolean =>
        shown(path) && (!glob || globMatches(glob, path, rel));
      if (binary) {
        // `-g` would override .gitignore; a file type of the same glob filters without doing so.
        const fileFilter =
          glob && !glob.includes("/") && !glob.includes(",")
            ? ["--type-add", `nexglob:${glob}`, "-t", "nexglob"]
            : [];
        const args = [
          "--json",
          ...RG_BASE,
          "--max-filesize",
          "10M",
          ...(ignoreCase ? ["-i"] : []),
          ...fileFilter,
          "-e",
          pattern,
          ...(rel ? ["--", rel] : []),
        ];
        let lastPath = "";
        await runRg(binary, args, signal, (line) => {
          const event = JSON.parse(line) as {
            type: string;
            data: { path?: { text?: string }; lines?: { text?: string }; line_number?: number };
          };
          if (event.type !== "match") return;
          const path = event.data.path?.text ?? "";
          if (!wanted(path)) return;
          add(path, event.data.line_number ?? 0, event.data.lines?.text ?? "", path !== lastPath);
          lastPath = path;
        });
        return result;
      }
      const regex = compile(pattern, ignoreCase);
      for await (const path of walk(root, dir, signal)) {
        if (!wanted(path)) continue;
        const abs = path.startsWith("/") ? path : join(root, path);
        const info = await stat(abs).catch(() => null);
        if (!info || info.size > MAX_SEARCH_FILE_BYTES || (await isBinaryFile(abs))) continue;
        let first = true;
        let n = 0;
        for (const line of (await readFile(abs, "utf8")).split("\n")) {
          n += 1;
          if (regex.test(line)) {
            add(path, n, line, first);
            first = false;
          }
        }
      }
      return result;
    },
  };
}

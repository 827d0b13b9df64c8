import { stat } from "node:fs/promises";
import { join } from "node:path";
import { type FileList, listSearchFiles, type Unsearched } from "./file-list.ts";
import { findOnPath } from "./find-on-path.ts";
import { globMatches } from "./glob-matches.ts";
import { type FileMatches, searchFile } from "./line-search.ts";
import { type SearchPattern, translatePattern } from "./pattern.ts";
import { searchInWorker } from "./worker-search.ts";

export type { Unsearched } from "./file-list.ts";
export { globMatches } from "./glob-matches.ts";

// Loaded on first use rather than at start-up: most sessions start no process for a while, if ever.
const childProcess = () => process.getBuiltinModule("node:child_process");
const readline = () => process.getBuiltinModule("node:readline");

/** Files larger than this are not searched (and the result says which). */
export const MAX_SEARCH_FILE_BYTES = 10 * 2 ** 20;

/** One matching line. */
export interface GrepMatch {
  /** Relative to the workspace root (absolute when outside it). */
  path: string;
  line: number;
  text: string;
}

/** What a search found: the first `keep` matches, how many in all, and what it could not search. */
export interface GrepResult {
  matches: GrepMatch[];
  total: number;
  files: number;
  /** Files and directories not searched (unreadable, too large, a name no call can hold). */
  unsearched: Unsearched[];
  /** How many files were searched. */
  searched: number;
  /** Binary files (a NUL byte) with a matching line, which grep does not show. */
  binary: string[];
}

/** A search request. `dir` is absolute and already checked by the workspace guard; it may name a file. */
export interface GrepQuery {
  pattern: string;
  dir: string;
  glob?: string;
  ignoreCase: boolean;
  keep: number;
  signal: AbortSignal;
}

/** Which engine searches and whose rules pick the files, for `nex doctor` and `/status`. */
export interface SearchBackend {
  engine: "ripgrep" | "javascript";
  /** The ripgrep binary used, when it is. */
  binary?: string;
}

/** Finds files and text, with ripgrep when it is on PATH and JavaScript otherwise. */
export interface FileSearch {
  backend(): Promise<"ripgrep" | "javascript">;
  describe(): Promise<SearchBackend>;
  /** Every non-ignored file under `dir`, relative to the workspace root, and what could not be listed. */
  listFiles(dir: string, signal: AbortSignal): Promise<FileList>;
  grep(query: GrepQuery): Promise<GrepResult>;
}

const shownText = (text: string): string => text.replace(/\r?\n$/, "").replace(/\r$/, "");

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

// Far below the kernel's argument limit, so a batch of paths always fits one ripgrep command line.
const BATCH_CHARS = 64 * 1024;

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
  const relativeOf = (dir: string): string | null =>
    dir === root ? null : dir.startsWith(`${root}/`) ? dir.slice(root.length + 1) : dir;

  /** ripgrep over named files: ignore rules are not its business here, the list already applied them. */
  const rgSearch = async (
    binary: string,
    regex: string,
    paths: string[],
    signal: AbortSignal,
    add: (path: string, line: number, text: string) => void,
    result: GrepResult,
  ): Promise<void> => {
    const unsearched = result.unsearched;
    const args = [
      "--json",
      "--no-config",
      "--no-ignore",
      "--hidden",
      // One file after another, in the order given: matches come out sorted by path, as in JavaScript.
      "--sort",
      "path",
      // No BOM sniffing: the bytes are searched as they are, as the JavaScript search does.
      "--encoding",
      "none",
      "-e",
      regex,
      "--",
      ...paths,
    ];
    const child = childProcess().spawn(binary, args, {
      cwd: root,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      signal,
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 64_000) stderr += chunk.toString("utf8");
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
    type Text = { text?: string; bytes?: string };
    const textOf = (t: Text | undefined): string =>
      t?.text ?? (t?.bytes ? Buffer.from(t.bytes, "base64").toString("utf8") : "");
    // A file's matches wait for its end: one with a NUL byte anywhere is binary and shows none.
    let pending: { line: number; text: string }[] = [];
    try {
      for await (const line of readline().createInterface({ input: child.stdout })) {
        const event = JSON.parse(line) as {
          type: string;
          data: { path?: Text; lines?: Text; line_number?: number; binary_offset?: number | null };
        };
        if (event.type === "begin") pending = [];
        else if (event.type === "match")
          pending.push({ line: event.data.line_number ?? 0, text: textOf(event.data.lines) });
        else if (event.type === "end") {
          const path = textOf(event.data.path);
          if (event.data.binary_offset != null) {
            if (pending.length > 0) result.binary.push(path);
          } else for (const m of pending) add(path, m.line, m.text);
        }
      }
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
    const code = await closed;
    signal.throwIfAborted();
    if (failed) throw failed;
    if (code === 0 || code === 1) return;
    if (code === 2) {
      // Each file ripgrep could not read is named on stderr: said, not dropped.
      for (const message of stderr.trim().split("\n")) {
        const m = /^(?:rg: )?(.+?): (.+?)(?: \(os error \d+\))?$/.exec(message);
        if (m?.[1]) unsearched.push({ path: m[1], reason: (m[2] ?? "").toLowerCase() });
      }
      if (unsearched.length > 0) return;
    }
    throw new Error(`ripgrep exited with ${code}: ${stderr.trim().slice(0, 2000)}`);
  };

  const jsSearch = async (
    pattern: SearchPattern,
    paths: string[],
    signal: AbortSignal,
    add: (path: string, line: number, text: string) => void,
    result: GrepResult,
  ): Promise<void> => {
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
  };

  const listFiles = async (dir: string, signal: AbortSignal): Promise<FileList> =>
    listSearchFiles(root, dir, env, shown, signal);

  return {
    backend: async () => ((await ripgrep()) ? "ripgrep" : "javascript"),
    async describe() {
      const binary = await ripgrep();
      return binary ? { engine: "ripgrep", binary } : { engine: "javascript" };
    },
    listFiles,
    async grep(query) {
      const { dir, glob, ignoreCase, keep, signal } = query;
      const pattern = translatePattern(query.pattern, ignoreCase);
      const result: GrepResult = {
        matches: [],
        total: 0,
        files: 0,
        unsearched: [],
        searched: 0,
        binary: [],
      };
      let lastPath = "";
      const add = (path: string, line: number, text: string): void => {
        result.total += 1;
        if (path !== lastPath) result.files += 1;
        lastPath = path;
        if (result.matches.length < keep)
          result.matches.push({ path, line, text: shownText(text) });
      };
      // A file named by `path` is searched whatever the ignore rules say, as ripgrep does.
      const info = await stat(dir);
      const rel = relativeOf(dir);
      const list: FileList = info.isDirectory()
        ? await listFiles(dir, signal)
        : { files: [{ path: rel ?? dir, size: info.size }], unsearched: [], rules: "git" };
      result.unsearched.push(...list.unsearched);
      const paths: string[] = [];
      for (const file of list.files) {
        if (glob && info.isDirectory() && !globMatches(glob, file.path, rel)) continue;
        if (file.size > MAX_SEARCH_FILE_BYTES)
          result.unsearched.push({ path: file.path, reason: "larger than 10 MiB" });
        else paths.push(file.path);
      }
      result.searched = paths.length;
      const binary = await ripgrep();
      if (!binary) {
        await jsSearch(pattern, paths, signal, add, result);
        return result;
      }
      for (let i = 0; i < paths.length; ) {
        const batch: string[] = [];
        let chars = 0;
        while (i < paths.length && (batch.length === 0 || chars < BATCH_CHARS)) {
          const path = paths[i++] as string;
          batch.push(path);
          chars += path.length + 1;
        }
        await rgSearch(binary, pattern.rust, batch, signal, add, result);
      }
      return result;
    },
  };
}

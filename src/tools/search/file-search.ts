import { stat } from "node:fs/promises";
import { type FileList, listSearchFiles } from "./file-list.ts";
import { findOnPath } from "./find-on-path.ts";
import { globMatches } from "./glob-matches.ts";
import type { GrepResult } from "./grep-result.ts";
import { jsSearch } from "./js-search.ts";
import { ripgrepSearch } from "./ripgrep-search.ts";

export type { Unsearched } from "./file-list.ts";
export { globMatches } from "./glob-matches.ts";
export type { GrepMatch, GrepResult } from "./grep-result.ts";

/** Files larger than this are not searched (and the result says which). */
export const MAX_SEARCH_FILE_BYTES = 10 * 2 ** 20;

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
      // The dialect's parser loads with the first search: start-up does not need it.
      const { translatePattern } = await import("./pattern.ts");
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
        await jsSearch(root, pattern, paths, signal, add, result);
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
        await ripgrepSearch({ binary, root, env }, pattern.rust, batch, signal, add, result);
      }
      return result;
    },
  };
}

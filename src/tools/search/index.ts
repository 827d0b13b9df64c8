// Listing and searching files (ripgrep or JavaScript over git's or ripgrep's file list). The engine
// (ripgrep's driver, the JavaScript search, the regex dialect, the worker) loads on the first glob or
// grep: a session that never searches never pays for loading it, and this index loads little.
import type { FileSearch } from "./file-search.ts";

export { describeSearch } from "./describe.ts";
export type { FileSearch, GrepResult, SearchBackend } from "./file-search.ts";
export { nameText } from "./file-walk.ts";
export { globMatches } from "./glob-matches.ts";

type Engine = typeof import("./file-search.ts");

/** `createFileSearch` of file-search.ts, loaded on the first call of any of its methods. */
export function createFileSearch(...args: Parameters<Engine["createFileSearch"]>): FileSearch {
  let search: Promise<FileSearch> | null = null;
  const engine = (): Promise<FileSearch> => {
    search ??= import("./file-search.ts").then((module) => module.createFileSearch(...args));
    return search;
  };
  return {
    backend: async () => (await engine()).backend(),
    describe: async () => (await engine()).describe(),
    listFiles: async (dir, signal) => (await engine()).listFiles(dir, signal),
    grep: async (query) => (await engine()).grep(query),
  };
}

// Listing and searching files (ripgrep or JavaScript over git's or ripgrep's file list).

export { describeSearch } from "./describe.ts";
export {
  createFileSearch,
  type FileSearch,
  type GrepResult,
  globMatches,
  type SearchBackend,
} from "./file-search.ts";
export { nameText } from "./file-walk.ts";

// Listing and searching files (ripgrep or the JavaScript walk), honouring ignore files.
export { createFileSearch, type FileSearch, globMatches } from "./file-search.ts";

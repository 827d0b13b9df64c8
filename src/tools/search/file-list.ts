// Which files a search covers: in a git repository, git's own answer (`git ls-files`: tracked files
// and untracked ones its ignore rules keep), as undo sees the workspace; elsewhere the walk with
// ripgrep's rules. Both backends search this one list, so neither hides what the other shows.

import { lstatSync } from "node:fs";
import { join } from "node:path";
import { ALWAYS_SKIPPED, isNexTemp, nameText, reasonOf, walkFiles } from "./file-walk.ts";

const childProcess = () => process.getBuiltinModule("node:child_process");

/** A file or directory that could not be searched, and why. */
export interface Unsearched {
  path: string;
  reason: string;
}

/** The files to search, with their sizes, and what could not be read. */
export interface FileList {
  files: { path: string; size: number }[];
  unsearched: Unsearched[];
  /** Whose ignore rules chose the files. */
  rules: "git" | "ignore files";
}

const REPOSITORY_VARIABLES = new Set([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_PREFIX",
]);

/** git's listing of `dir`, relative to it, or null when `dir` is not in a work tree. */
function gitListing(
  dir: string,
  env: Record<string, string | undefined>,
  signal: AbortSignal,
): Promise<Buffer | null> {
  const gitEnv: Record<string, string> = {};
  // The caller's GIT_DIR or GIT_INDEX_FILE (nex started by a hook) must not point git elsewhere.
  for (const [key, value] of Object.entries(env))
    if (value !== undefined && !REPOSITORY_VARIABLES.has(key)) gitEnv[key] = value;
  gitEnv.GIT_OPTIONAL_LOCKS = "0";
  return new Promise((resolve, reject) => {
    childProcess().execFile(
      "git",
      [
        // A repository's own config must not run anything (an fsmonitor command, hooks).
        "-c",
        "core.fsmonitor=false",
        "-c",
        "core.hooksPath=/dev/null",
        "ls-files",
        "-z",
        "--cached",
        "--others",
        "--exclude-standard",
      ],
      { cwd: dir, env: gitEnv, encoding: "buffer", maxBuffer: 1 << 30, signal },
      (error, stdout, stderr) => {
        if (signal.aborted) return reject(signal.reason);
        if (!error) return resolve(stdout);
        const code = (error as { code?: unknown }).code;
        // No git, or not a repository: the walk decides.
        if (code === "ENOENT" || code === 128) return resolve(null);
        reject(new Error(`git ls-files failed: ${stderr.toString().trim() || error.message}`));
      },
    );
  });
}

const skipped = (path: string): boolean =>
  path.split("/").some((part) => ALWAYS_SKIPPED.has(part) || isNexTemp(part));

/** Lists the files under `dir` (absolute); paths relative to `root`, or absolute outside it. */
export async function listSearchFiles(
  root: string,
  dir: string,
  env: Record<string, string | undefined>,
  shown: (path: string) => boolean,
  signal: AbortSignal,
): Promise<FileList> {
  const inside = dir === root || dir.startsWith(`${root}/`);
  const prefix = dir === root ? "" : inside ? `${dir.slice(root.length + 1)}/` : `${dir}/`;
  const files: FileList["files"] = [];
  const unsearched: Unsearched[] = [];
  const consider = (path: string): void => {
    if (!shown(path)) return;
    const abs = path.startsWith("/") ? path : join(root, path);
    let info: ReturnType<typeof lstatSync>;
    try {
      info = lstatSync(abs);
    } catch (error) {
      // A tracked file deleted from the work tree is not there to search.
      if ((error as NodeJS.ErrnoException).code !== "ENOENT")
        unsearched.push({ path, reason: reasonOf(error) });
      return;
    }
    // Symlinks are not followed (as with ripgrep): one could lead outside the workspace.
    if (info.isFile()) files.push({ path, size: info.size });
    // git lists a submodule (or an untracked repository inside this one) as one entry, not its files.
    else if (info.isDirectory())
      unsearched.push({
        path: path.replace(/\/$/, ""),
        reason: "a git repository of its own: name it as the path to search it",
      });
  };
  const listed = await gitListing(dir, env, signal);
  if (listed) {
    let start = 0;
    for (let i = 0; i <= listed.length; i += 1) {
      if (i < listed.length && listed[i] !== 0) continue;
      if (i > start) {
        const bytes = listed.subarray(start, i);
        const rel = nameText(bytes);
        if (rel === null)
          unsearched.push({
            path: prefix + bytes.toString("utf8"),
            reason: "its name is not valid UTF-8",
          });
        // Skipped folders count from the workspace root, as in the walk: a folder named as the
        // path (`node_modules`) is no way around the skip.
        else if (!skipped(inside ? prefix + rel : rel)) consider(prefix + rel);
      }
      start = i + 1;
    }
    return sorted({ files, unsearched, rules: "git" });
  }
  for await (const entry of walkFiles(inside ? root : dir, dir, signal)) {
    const path = inside ? entry.path : entry.path === "." ? dir : join(dir, entry.path);
    if (entry.type === "file") consider(path);
    else unsearched.push({ path, reason: entry.reason });
  }
  return sorted({ files, unsearched, rules: "ignore files" });
}

// By the bytes of the names, as ripgrep sorts them, so both backends answer in one order.
function sorted(list: FileList): FileList {
  const keyed = list.files.map((file) => ({ file, key: Buffer.from(file.path) }));
  keyed.sort((a, b) => Buffer.compare(a.key, b.key));
  list.files = keyed.map(({ file }) => file);
  return list;
}

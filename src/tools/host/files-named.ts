// Which workspace files a file name a model used may mean. Small models call a tool named after a
// file (`clamp.test.js`, r12 add-test-js); the reminder that tells them which tool to call names the
// file, and must name one that is there (the file was test/clamp.test.js), or say that none is.

import { lstat } from "node:fs/promises";
import { posix } from "node:path";
import { type HostState, sharedContext } from "./host-state.ts";

/**
 * The file at `name` (a path inside the workspace, followed as the tools follow it), else the files
 * whose base name is `name`'s as glob lists them (git's or the ignore files' choice, nex's own data
 * left out), those ending in the whole `name` first, then the shallowest; at most `limit`, shown as
 * results show paths. Nothing outside the workspace is looked at or named.
 */
export async function filesNamed(
  state: HostState,
  name: string,
  limit: number,
  signal: AbortSignal,
): Promise<string[]> {
  const { workspace, search } = await sharedContext(state);
  const given = posix.normalize(name.trim()).replace(/^\.\//, "");
  const at = await workspace.resolve(given).catch(() => null);
  if (at?.exists && !at.outside && (await lstat(at.abs)).isFile()) return [at.display];
  const base = posix.basename(given);
  if (base === "" || base === "." || base === "..") return [];
  const listed = await search.listFiles(workspace.root, signal);
  const depth = (path: string) => path.split("/").length;
  const whole = (path: string) => (path.endsWith(`/${given}`) ? 0 : 1);
  return listed.files
    .map((file) => file.path)
    .filter((path) => posix.basename(path) === base)
    .sort((a, b) => whole(a) - whole(b) || depth(a) - depth(b))
    .slice(0, limit);
}

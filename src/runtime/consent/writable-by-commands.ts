// Whether a path is one a repository ships or a sandboxed command can write: the workspace, and the
// extra folders the sandbox settings make writable. What lies there is the repository's word, never
// the user's: nex keeps consent out of it and refuses to take another party's authority from it.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

/** The real path of `path`, its missing tail kept: the nearest existing folder's links resolved. */
export function realPathOf(path: string): string {
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(at), ...missing.reverse());
    } catch {
      const parent = dirname(at);
      if (parent === at) return resolve(path);
      missing.push(basename(at));
      at = parent;
    }
  }
}

function within(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith("/") ? root : `${root}/`);
}

/**
 * Why a repository or a sandboxed command could write `path` (completes "it lies ..."), or null. Links
 * are resolved on both sides: a consent file that is a link into the workspace counts as the workspace's.
 */
export function commandWritable(
  path: string,
  where: { workspace: string; writable?: readonly string[]; home?: string | undefined },
): string | null {
  const real = realPathOf(path);
  const workspace = realPathOf(where.workspace);
  const home = where.home ?? homedir();
  // nex run in the home folder (or above it): the workspace is no cloned repository, the user's own
  // files lie in it, and nex hides its config and consent folders from commands.
  const realHome = realPathOf(home);
  const userOwn = within(realHome, workspace) && within(real, realHome);
  if (within(real, workspace) && !userOwn) return `inside the workspace ${workspace}`;
  for (const entry of where.writable ?? []) {
    const expanded =
      entry === "~" || entry.startsWith("~/")
        ? join(home, entry.slice(1))
        : isAbsolute(entry)
          ? entry
          : resolve(workspace, entry);
    const root = realPathOf(expanded);
    if (root !== "/" && within(real, root))
      return `inside ${root}, which the sandbox settings make writable to commands`;
  }
  return null;
}

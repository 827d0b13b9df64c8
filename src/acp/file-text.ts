// A workspace file's text, read only to show an edit as a diff in the editor. Bounded and guarded:
// nothing outside the workspace, nothing large, nothing binary reaches the editor this way.
import { closeSync, fstatSync, openSync, readFileSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";

/** Larger files are shown as text results, not as diffs. */
const DIFF_LIMIT = 1024 * 1024;

/**
 * The file's text; null when it does not exist; undefined when it is not shown (outside, large,
 * binary). Synchronous on purpose: read as a tool call starts, it must see the file before the tool
 * changes it, and the tool runs as soon as the event's listeners return.
 */
export function workspaceTextNow(workspace: string, path: string): string | null | undefined {
  const absolute = isAbsolute(path) ? path : resolve(workspace, path);
  let root: string;
  let real: string;
  try {
    root = realpathSync(workspace);
    try {
      real = realpathSync(absolute);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      // A file about to be created: its folder must be inside.
      real = resolve(realpathSync(dirname(absolute)), relative(dirname(absolute), absolute));
    }
  } catch {
    return undefined;
  }
  const inside = relative(root, real);
  if (inside === ".." || inside.startsWith("../") || isAbsolute(inside)) return undefined;
  let fd: number;
  try {
    fd = openSync(real, "r");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > DIFF_LIMIT) return undefined;
    const bytes = readFileSync(fd);
    if (bytes.length > DIFF_LIMIT || bytes.includes(0)) return undefined;
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The same, as a promise (for reads after a change, where timing does not matter). */
export async function workspaceText(
  workspace: string,
  path: string,
): Promise<string | null | undefined> {
  return workspaceTextNow(workspace, path);
}

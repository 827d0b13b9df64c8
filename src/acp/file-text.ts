// A workspace file's text, read only to show an edit as a diff in the editor. Bounded and guarded:
// nothing outside the workspace, nothing large, nothing binary reaches the editor this way.
import { open, realpath } from "node:fs/promises";
import { dirname, isAbsolute, relative, resolve } from "node:path";

/** Larger files are shown as text results, not as diffs. */
const DIFF_LIMIT = 1024 * 1024;

/** The file's text; null when it does not exist; undefined when it is not shown (outside, large, binary). */
export async function workspaceText(
  workspace: string,
  path: string,
): Promise<string | null | undefined> {
  const absolute = isAbsolute(path) ? path : resolve(workspace, path);
  let root: string;
  let real: string;
  try {
    root = await realpath(workspace);
    real = await realpath(absolute).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOENT") throw error;
      // A file about to be created: its folder must be inside.
      return resolve(await realpath(dirname(absolute)), relative(dirname(absolute), absolute));
    });
  } catch {
    return undefined;
  }
  const inside = relative(root, real);
  if (inside === ".." || inside.startsWith("../") || isAbsolute(inside)) return undefined;
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(real, "r");
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > DIFF_LIMIT) return undefined;
    const bytes = await handle.readFile();
    if (bytes.length > DIFF_LIMIT || bytes.includes(0)) return undefined;
    const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return text;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

// What an edit_file or write_file call would change, for the permission prompt: the diff against the
// file as it is now (a new file: its first lines as added). Best effort and read-only: a preview
// that cannot be made (no such text, unreadable file) says so, and the tool's own checks still run.
import { readState, shortDiff } from "../files/index.ts";
import type { ToolContext } from "../tool.ts";

const PREVIEW_LINES = 200;
// A file larger than this is not diffed for a prompt.
const PREVIEW_BYTES = 2 * 1024 * 1024;

/** The diff a file tool's call would make, or null for other tools. */
export async function previewChange(
  name: string,
  args: Record<string, unknown>,
  ctx: ToolContext,
): Promise<string | null> {
  if (name !== "edit_file" && name !== "write_file") return null;
  const path = typeof args.path === "string" ? args.path : null;
  if (!path) return null;
  const target = await ctx.workspace.resolve(path).catch(() => null);
  if (!target) return null;
  const state = target.exists
    ? await readState(target.abs, target.display).catch(() => null)
    : null;
  if (target.exists && !state) return "(the file could not be read for a preview)";
  if (state && state.size > PREVIEW_BYTES) return "(the file is too large to preview)";
  const before = state ? state.bytes.toString("utf8") : "";
  if (name === "write_file") {
    const content = typeof args.content === "string" ? args.content : "";
    if (typeof args.parts === "number" && args.parts > 1) {
      return shortDiff(target.display, "", content, PREVIEW_LINES);
    }
    return shortDiff(target.display, before, content, PREVIEW_LINES);
  }
  const oldText = typeof args.old_string === "string" ? args.old_string : "";
  const newText = typeof args.new_string === "string" ? args.new_string : "";
  if (!state) return "(the file does not exist; edit_file will refuse)";
  if (oldText === "" || !before.includes(oldText)) {
    // edit_file also matches with other line endings or indentation; show the change as sent.
    return shortDiff(target.display, oldText, newText, PREVIEW_LINES);
  }
  const after =
    args.replace_all === true
      ? before.split(oldText).join(newText)
      : before.replace(oldText, () => newText);
  return shortDiff(target.display, before, after, PREVIEW_LINES);
}

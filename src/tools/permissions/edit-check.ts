import type { PermissionCheck } from "../../protocol/index.ts";
import { loadGlobMatcher } from "../files/index.ts";
import type { Tool } from "../tool.ts";
import type { PermissionState } from "./permission-state.ts";
import { controlledEdit } from "./trusted-files.ts";

/**
 * A file tool's call: a path the guard refuses is left to the tool, an edit to a file that controls
 * what runs always asks (refused on --yes), auto_edit runs edits inside the workspace.
 */
export async function checkEdit(
  state: PermissionState,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<PermissionCheck> {
  const path = tool.target(args);
  const located =
    path === null ? { where: "inside" as const, display: "" } : await state.options.locate(path);
  // A path the guard refuses is not worth asking about: the tool refuses it with `outside_workspace`.
  if (located === null) return { type: "allow" };
  const { hooksDir } = await state.options.hazards();
  const trusted = state.trusted();
  // Trusted commands' files are matched as globs (`*.mk`); the edit guards' own are plain names.
  if (trusted.length > 0) await loadGlobMatcher();
  const controlled =
    path === null ? null : controlledEdit(located.display, trusted, () => hooksDir?.() ?? null);
  if (state.mode === "approve_all") {
    if (!controlled?.hidden) return { type: "allow" };
    return {
      type: "deny",
      reason: `${controlled.why}; nex does not make such edits on --yes / approve_all. Do it another way, or tell the user to make this change themselves.`,
    };
  }
  // Never approved silently, neither by auto_edit nor by an earlier approval for the session.
  if (controlled) {
    const preview = await state.options.preview?.(tool, args).catch(() => null);
    return {
      type: "ask",
      summary: `${await state.options.summarize(tool, args)} (⚠ ${controlled.why})`,
      ...(preview ? { preview } : {}),
      warning: controlled.why,
    };
  }
  if (state.mode === "auto_edit" && located.where === "inside") return { type: "allow" };
  if (state.approvedTools.has(tool.name)) return { type: "allow" };
  const preview = await state.options.preview?.(tool, args).catch(() => null);
  return {
    type: "ask",
    summary: await state.options.summarize(tool, args),
    scope: `every ${tool.name} call, for this session (edits to files that control what runs still ask)`,
    ...(preview ? { preview } : {}),
  };
}

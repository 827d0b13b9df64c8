import type { PermissionCheck } from "../../protocol/index.ts";
import type { Tool } from "../tool.ts";
import type { PermissionState } from "./permission-state.ts";

// A call that reaches out (a fetch, a search) asks in ask and auto_edit mode and runs on --yes or
// once approved for the session; one with a caution (a private address) asks every time, and
// with no person to ask it is refused with the caution's words.
export async function checkReach(
  state: PermissionState,
  tool: Tool,
  args: Record<string, unknown>,
): Promise<PermissionCheck> {
  const caution = (await tool.caution?.(args).catch(() => null)) ?? null;
  if (caution) {
    if (state.options.unattended) return { type: "deny", reason: caution };
    return {
      type: "ask",
      summary: `${await state.options.summarize(tool, args)} (⚠ ${caution})`,
      warning: caution,
    };
  }
  if (state.mode === "approve_all" || state.approvedTools.has(tool.name)) return { type: "allow" };
  return { type: "ask", summary: await state.options.summarize(tool, args) };
}

// Plan mode: the model may read and propose, never change. What reads runs as in ask mode (read
// tools, read-only command lines, web fetches that ask); every edit, every command that could change
// anything and every tool that acts elsewhere is refused with words that say what to do instead.
import type { PermissionCheck } from "../../protocol/index.ts";
import { shortCommand } from "../command-line/index.ts";

/** The refusal of a changing call in plan mode: why, and what the model should do now. */
export function planRefusal(
  tool: string,
  command: string | null,
  outsidePlan: PermissionCheck,
): PermissionCheck {
  const what = command === null ? `This ${tool} call` : `\`${shortCommand(command)}\``;
  return {
    type: "deny",
    outsidePlan,
    reason: `${what} was not run: nex is in plan mode (read-only), so nothing may be changed: no edits, no writes, no commands that change anything; reading, searching and read-only commands (ls, cat, git diff, git log) still work. Do not look for another way to make the change: finish reading, then answer with your plan (what you would change, in which files, and why). The user leaves plan mode (Shift+Tab or /mode) to have it carried out.`,
  };
}

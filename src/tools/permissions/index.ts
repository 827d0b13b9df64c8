// Whether a call may run: the rules, the hazard guard, files that run code (hooks, configs).
import type { SubCommand } from "../command-line/index.ts";

export { type CommandRules, createPermissions } from "./permissions.ts";
export { workspaceHooksDir } from "./trusted-files.ts";

/** Whether any of `commands` may change files (loaded with the first command asked about). */
export async function anyMayChange(commands: readonly SubCommand[]): Promise<boolean> {
  const { mayChange } = await import("./coverage-hazards.ts");
  return commands.some(mayChange);
}

import type { PermissionCheck, PermissionMode, ToolInvocation } from "../../protocol/index.ts";
import { rememberedPattern } from "./command-patterns.ts";
import { checkEdit } from "./edit-check.ts";
import { createPermissionState, type PermissionOptions } from "./permission-state.ts";
import { planRefusal } from "./plan-mode.ts";
import { checkReach } from "./reach-check.ts";

export type { CommandRules, PermissionOptions } from "./permission-state.ts";

/** The permission rules of one host, with the approvals the user gave for the session. */
export interface Permissions {
  check(call: ToolInvocation): Promise<PermissionCheck>;
  remember(call: ToolInvocation): void;
  /**
   * The allow rules that would let this call run unasked in this project from now on, precise (a
   * command and its subcommand, never a blanket tool), or why it cannot be saved (a hazard, a
   * command with no subcommand, code nex cannot see, a tool approved per session only).
   */
  savableRules(call: ToolInvocation): Promise<{ rules: string[] } | { refused: string }>;
  setMode(mode: PermissionMode): void;
  mode(): PermissionMode;
}

// What judges a command line (the rules, the hazards, what only reads) loads with the first command
// checked: a session of file edits never loads it. Kept once loaded (each `import()` still resolves).
let commandJudge: Promise<CommandJudge> | null = null;
type CommandJudge = typeof import("./command-check.ts") &
  typeof import("./command-hazards.ts") &
  typeof import("./read-only-commands.ts");
const judge = (): Promise<CommandJudge> =>
  (commandJudge ??= Promise.all([
    import("./command-check.ts"),
    import("./command-hazards.ts"),
    import("./read-only-commands.ts"),
  ]).then(([check, hazards, reads]) => ({ ...check, ...hazards, ...reads })));

/** Builds the permission rules; read-only tools never ask, deny rules always win. */
export function createPermissions(options: PermissionOptions): Permissions {
  const state = createPermissionState(options);
  return {
    mode: () => state.mode,
    setMode(next) {
      state.mode = next;
    },
    async check(call) {
      const tool = options.tools.get(call.name);
      if (tool?.reach && options.validArgs(tool, call.args))
        return checkReach(state, tool, call.args);
      if (!tool || tool.mutates === false || !options.validArgs(tool, call.args))
        return { type: "allow" };
      const summarize = () => options.summarize(tool, call.args);
      const command = tool.command(call.args);
      if (state.mode === "plan") {
        // Plan mode: only what reads runs; the model is told to propose instead.
        const { checkCommand, isReadOnlyCommandLine } = await judge();
        const parsed = command === null ? null : await state.parse(command);
        const { roots, allowedPaths } = await options.hazards();
        const reads =
          parsed?.type === "parsed" && isReadOnlyCommandLine(parsed.commands, roots, allowedPaths);
        if (command === null)
          return planRefusal(tool.name, null, { type: "ask", summary: await summarize() });
        const verdict = await checkCommand(state, command, summarize);
        return reads || verdict.type === "deny"
          ? verdict
          : planRefusal(tool.name, command, verdict);
      }
      if (command !== null) return (await judge()).checkCommand(state, command, summarize);
      if (tool.mutates === "exec") {
        // A tool that acts outside the workspace in its own way (a server's deploy): nothing can
        // confine or undo it, so only a person, or --yes, lets it run.
        if (state.mode === "approve_all" || state.approvedTools.has(tool.name))
          return { type: "allow" };
        return { type: "ask", summary: await summarize() };
      }
      return checkEdit(state, tool, call.args);
    },
    async savableRules(call) {
      const tool = options.tools.get(call.name);
      const command = tool?.command(call.args) ?? null;
      if (!tool || command === null)
        return {
          refused: `${call.name} approvals are not saved (they hold for this session); for edits without asking, use /mode auto_edit or "permissionMode" in the config`,
        };
      const result = await state.parse(command);
      if (result.type !== "parsed" || result.commands.length === 0)
        return { refused: "nex could not parse this command, so it cannot write a precise rule" };
      const { hazardOf, isReadOnlyCommandLine } = await judge();
      if (result.commands.some((sub) => sub.opaque))
        return {
          refused:
            "it runs code nex cannot see (a substitution or a script), so no rule can cover it safely",
        };
      if (hazardOf(result.commands, await options.hazards()))
        return { refused: "undo could not repair what it does, so it asks every time" };
      const { roots, allowedPaths } = await options.hazards();
      const needRules = result.commands.filter(
        (sub) => !isReadOnlyCommandLine([sub], roots, allowedPaths),
      );
      if (needRules.length === 0)
        return { refused: "it only reads, and read-only commands already run without asking" };
      const patterns = needRules.map(rememberedPattern);
      const exact = patterns.find((pattern) => pattern.exact);
      if (exact)
        return {
          refused: `a rule is a command and its subcommand (\`npm test\`), and \`${exact.words.join(" ")}\` has none or changes files undo must see each time; add a rule by hand if you mean every such command`,
        };
      return { rules: [...new Set(patterns.map((pattern) => pattern.words.join(" ")))] };
    },
    remember(call) {
      const tool = options.tools.get(call.name);
      if (!tool || (tool.mutates === false && !tool.reach)) return;
      const command = tool.command(call.args);
      if (command === null) {
        state.approvedTools.add(tool.name);
        return;
      }
      state.approvedCommands.add(command);
      void state.parse(command).then((result) => {
        if (result.type !== "parsed") return;
        for (const sub of result.commands)
          if (!sub.opaque) state.approvedPatterns.push(rememberedPattern(sub));
      });
    },
  };
}

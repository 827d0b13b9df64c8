import type { PermissionCheck, ToolInvocation } from "../../protocol/index.ts";
import { parseCommand } from "../command-line/index.ts";
import { anyMayChange, createPermissions, workspaceHooksDir } from "../permissions/index.ts";
import { loadGitReaders } from "../sandbox/index.ts";
import type { Tool } from "../tool.ts";
import { validateArguments } from "./dispatch.ts";
import { type HostState, sharedContext } from "./host-state.ts";

export type HostPermissions = ReturnType<typeof createPermissions>;

/** The permission rules over this host's tools, with where paths land and what a change would do. */
export function createHostPermissions(state: HostState, tools: Map<string, Tool>): HostPermissions {
  const { options, env, ready } = state;
  return createPermissions({
    mode: options.mode,
    ...(options.rules ? { rules: options.rules } : {}),
    tools,
    sandboxUnavailable: () => state.sandbox.unavailable(),
    unattended: options.unattended ?? false,
    validArgs: (tool, args) => validateArguments(tool, args).length === 0,
    async locate(path) {
      const workspace = await ready;
      const resolved = await workspace.resolve(path).catch(() => null);
      if (!resolved) return null;
      return { where: resolved.outside ? "allowed" : "inside", display: resolved.display };
    },
    async hazards() {
      const workspace = await ready.catch(() => null);
      const { gitHooksDir, gitSettings } = await loadGitReaders();
      return {
        roots: [...new Set([options.workspace, workspace?.root ?? options.workspace])],
        allowedPaths: options.allowedPaths ?? [],
        privatePaths: options.privatePaths ?? [],
        home: env.HOME,
        forcedPushConfig: () =>
          gitSettings(workspace?.root ?? options.workspace, env, "^remote\\..*\\.push$").some(
            (refspec) => refspec.startsWith("+"),
          ),
        hooksDir: () => workspaceHooksDir(options.workspace, gitHooksDir(options.workspace, env)),
        coverage: async () => {
          const ctx = await sharedContext(state).catch(() => null);
          return ctx
            ? ctx.checkpoints.coverage()
            : { type: "unavailable", reason: "the workspace cannot be used" };
        },
      };
    },
    async preview(tool, args) {
      const ctx = await sharedContext(state);
      // Loaded when a person is first asked: unattended runs never are.
      const { previewChange } = await import("./change-preview.ts");
      return previewChange(tool.name, args, {
        ...ctx,
        signal: AbortSignal.timeout(5_000),
        turn: 0,
      });
    },
    async summarize(tool, args) {
      const ctx = await sharedContext(state);
      return tool
        .summarize(args, { ...ctx, signal: AbortSignal.timeout(5_000), turn: 0 })
        .catch(() => tool.name);
    },
  });
}

/**
 * Checks a call and notes what its run needs: a caution a person saw (the tool may go there), or a
 * command that may change files with no person's yes (it needs its snapshot).
 */
export async function checkCall(
  state: HostState,
  tools: Map<string, Tool>,
  permissions: HostPermissions,
  call: ToolInvocation,
): Promise<PermissionCheck> {
  const check = await permissions.check(call);
  state.unattended.delete(call.id);
  state.cautioned.delete(call.id);
  if (check.type === "ask" && check.warning && tools.get(call.name)?.caution)
    state.cautioned.add(call.id);
  if (check.type === "allow" && tools.get(call.name)?.mutates === "exec") {
    const parsed = await parseCommand(String(call.args.command ?? "")).catch(() => null);
    if (parsed?.type !== "parsed" || (await anyMayChange(parsed.commands)))
      state.unattended.add(call.id);
  }
  return check;
}

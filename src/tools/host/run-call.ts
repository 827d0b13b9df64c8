import type { ToolInvocation, ToolOutcome } from "../../protocol/index.ts";
import type { Tool } from "../tool.ts";
import { dispatch } from "./dispatch.ts";
import { type HostState, ledgerOf, type SharedContext, sharedContext } from "./host-state.ts";

/**
 * Runs one call through the dispatcher with its agent's ledger, its caution approval and the UI's
 * progress and output hooks; a changing call ends with its checkpoint.
 */
export async function runCall(
  state: HostState,
  tools: Map<string, Tool>,
  call: ToolInvocation,
  signal: AbortSignal,
): Promise<ToolOutcome> {
  const { options } = state;
  let ctx: SharedContext;
  try {
    ctx = await sharedContext(state);
  } catch (error) {
    return {
      isError: true,
      code: "failed" as const,
      content: `The workspace ${options.workspace} cannot be used (${(error as Error).message}). Tell the user.`,
    };
  }
  if (state.unattended.delete(call.id)) state.runningUnattended.add(call.id);
  try {
    const approved = state.cautioned.delete(call.id);
    const report = options.onProgress;
    const live = options.onOutput;
    return await dispatch(call.name, call.args, {
      tools,
      context: {
        ...ctx,
        ledger: ledgerOf(state, call.agent),
        ...(approved ? { approved } : {}),
        ...(report ? { progress: (message: string) => report(call.id, call.name, message) } : {}),
        ...(live
          ? {
              output: (tail: string, lines: number, bytes: number) =>
                live(call.id, call.name, tail, lines, bytes),
            }
          : {}),
      },
      signal,
      turn: call.turn,
      callId: call.id,
    });
  } finally {
    state.runningUnattended.delete(call.id);
    if (tools.get(call.name)?.mutates) {
      await ctx.checkpoints.afterChange(call.turn).catch(() => {});
    }
  }
}

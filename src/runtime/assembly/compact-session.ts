import type { AgentEvent, CompactResult } from "../../protocol/index.ts";
import type { ConfigFlags } from "../config/index.ts";
import type { SessionInfo } from "../session/index.ts";
import { openSession } from "./open-session.ts";

/**
 * `nex compact`: opens a session, asks the model to summarise its older part, and journals it. The
 * outcome is the answer, not an event, so the caller says it exactly once.
 */
export async function compactSession(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  id: string,
  render: (info: SessionInfo) => (event: AgentEvent) => void,
): Promise<CompactResult> {
  const { session, events } = await openSession(flags, env, cwd, {
    resume: id,
    approvals: "refuse",
    mcp: false,
  });
  const shown = render(session.info);
  const listener = (event: AgentEvent) => {
    if (event.type !== "context_fitted" || event.method !== "compacted") shown(event);
  };
  for (const event of events) shown(event);
  session.subscribe(listener);
  try {
    return await session.compact();
  } finally {
    await session.close();
  }
}

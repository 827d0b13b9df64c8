// Work larger than one context: child agents (`delegate`, `map`) and chunked reading (`summarize`,
// `reader`), all on the session's endpoint, model, tools, permissions and journal.
import type { Tool, ToolContext } from "../../tools/index.ts";
import { findAgents } from "./agent-files.ts";
import { chunkMapTool, readerTool, summarizeTool } from "./chunked-tools.ts";
import { delegateTool } from "./delegate-tool.ts";
import { mapTool } from "./map-tool.ts";
import { Subagents } from "./subagent-context.ts";

export type { ChildParent } from "./child-agent.ts";

/** The subagent tools of one session, the named agents' problems, and `bind` to call once the session exists. */
export async function loadSubagents(
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<{ tools: Tool[]; problems: string[]; subagents: Subagents }> {
  const found = await findAgents(workspace, env);
  const subagents = new Subagents(found.agents);
  return {
    tools: [
      delegateTool(subagents),
      summarizeTool(subagents),
      readerTool(subagents),
      mapTool(subagents),
      chunkMapTool(subagents),
    ],
    problems: found.problems,
    subagents,
  };
}

/** One request to the session's model with no tools, shown as a child of the calling tool's call. */
export async function askModel(
  subagents: Subagents,
  kind: string,
  ctx: ToolContext,
  system: string,
  prompt: string,
): Promise<string> {
  const { askOnce } = await import("./chunked-reading.ts");
  const answer = await askOnce(subagents.session(), subagents.tag(kind, ctx), ctx, system, prompt);
  if (!answer.ok) throw new Error(answer.message);
  return answer.text;
}

import type { AgentEvent, ReadRecord, ToolHost } from "../../protocol/index.ts";
import type { SecretScrubber } from "../../session/index.ts";
import type { ToolHostOptions } from "../../tools/index.ts";
import type { NexConfig } from "../config/index.ts";
import { acceptsImages } from "../config/index.ts";
import type { Hooks } from "../hooks/index.ts";
import { scrubbedTools, toolEnvironment } from "../secrets/index.ts";
import type { CurrentModel, NexSession } from "../session/index.ts";
import { type ApprovalPolicy, noteForModel, UserNotes, withTurnNotes } from "../session/index.ts";
import { type AddedToolInputs, addedTools } from "./added-tools.ts";
import { onDemandTools } from "./on-demand-tools.ts";
import { NO_HOOKS, openHooks } from "./open-hooks.ts";
import { type McpSet, openSessionMcp } from "./open-mcp.ts";
import { sessionTools } from "./open-tools.ts";
import { selectTools, type ToolSelection } from "./tool-selection.ts";

/** What the session's tools are opened from; `session` is the session they will serve, once built. */
export interface ToolHostInputs {
  config: NexConfig;
  env: Record<string, string | undefined>;
  sessionId: string;
  secrets: SecretScrubber;
  ledger: ReadRecord[] | null;
  /** The window the session has now (/model and a 400 can change it). */
  window: () => number;
  extensions: AddedToolInputs["extensions"];
  subagents: AddedToolInputs["subagents"];
  /** The MCP servers gathered for the session (`sessionMcpServers`), started here. */
  mcpSet: McpSet;
  journalPath: string;
  events: AgentEvent[];
  current: CurrentModel;
  session: () => NexSession;
  /** What the caller asked for (`OpenOptions`). */
  open: {
    approvals: ApprovalPolicy;
    editor?: ToolHostOptions["editor"];
    /** The tools offered to the model (`--tools`, `--disallowed-tools`). */
    tools?: ToolSelection;
    /** Notes for the model, taken at each turn boundary (`--max-time`'s wrap-up, `--inbox` messages). */
    turnNotes?: () => string[];
    /** The chat folder `--chat` serves inside the workspace: read-only to commands, out of the tools' reach. */
    heldFolder?: string;
  };
}

/**
 * The session's tools, and the host the loop calls: MCP's tools, hooks around each call, the notes
 * that ride with a result, the secret scrubber, the tools loaded on demand and the user's selection.
 */
export async function openToolHost(inputs: ToolHostInputs) {
  const { config, env, sessionId, secrets, events, current, session, open } = inputs;
  const added = await addedTools(inputs);
  const mcp = await openSessionMcp(inputs.mcpSet, config, env, sessionId, secrets, events);
  const tools = sessionTools({
    config,
    env,
    sessionId,
    secrets,
    ledger: inputs.ledger,
    approvals: open.approvals,
    ...(open.heldFolder ? { heldFolder: open.heldFolder } : {}),
    window: () => inputs.window(),
    extraTools: added,
    onProgress: (callId, name, message) =>
      session().emit({ type: "tool_progress", callId, name, message }),
    onOutput: (callId, name, tail, lines, bytes) =>
      session().emit({ type: "tool_output", callId, name, tail, lines, bytes }),
    ...(open.editor ? { editor: open.editor } : {}),
    ...(mcp ? { dynamicTools: mcp.tools } : {}),
    acceptsImages: () => acceptsImages(current.model, config.models[current.model]),
  });
  // What a hook prints reaches the model and the screen: scrubbed of nex's secrets like a tool's output.
  const opened = await openHooks(
    config,
    events,
    {
      launch: (command, hookCwd) => tools.sandbox.launch(command, hookCwd),
      workspace: config.workspace,
      sessionId,
      transcriptPath: inputs.journalPath,
      env: toolEnvironment(env, config),
      notice: (message) => session().emit({ type: "notice", message }),
    },
    env,
  );
  const hooks =
    opened === NO_HOOKS
      ? NO_HOOKS
      : await (await import("../secrets/index.ts")).scrubbedHooks(opened, secrets);
  // What the user types while the model works, and the orchestrator's notes, ride with the next result.
  const userNotes = new UserNotes();
  const takeNotes = () => {
    const typed = userNotes.takeAll();
    for (const note of typed) session().emit({ type: "note_delivered", ...note });
    return [...typed.map(noteForModel), ...(open.turnNotes?.() ?? [])];
  };
  const mcpWrapped = mcp ? mcp.wrap(tools, config.commands) : tools;
  // Notes are added inside the scrubber: an inbox message is outside text like a tool's output.
  const host = selectTools(
    onDemandTools(
      scrubbedTools(withTurnNotes(await withHooks(mcpWrapped, hooks), takeNotes), secrets),
      liveSet(() => tools.deferredTools()),
      () => inputs.window(),
    ),
    open.tools,
  );
  return { tools, hooks, userNotes, host, mcp };
}

/** A set that follows a list returned anew only when it changes (the tools' deferred names). */
function liveSet(names: () => readonly string[]): () => ReadonlySet<string> {
  let seen: readonly string[] | null = null;
  let set: ReadonlySet<string> = new Set();
  return () => {
    const now = names();
    if (now !== seen) {
      seen = now;
      set = new Set(now);
    }
    return set;
  };
}

/** The tools with the hooks around each call; without hooks, the tools as they are. */
async function withHooks<T extends ToolHost>(tools: T, hooks: Hooks): Promise<T> {
  if (hooks.count === 0) return tools;
  return (await import("../hooks/index.ts")).hookedTools(tools, hooks);
}

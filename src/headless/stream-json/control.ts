import type { AgentSession } from "../../runtime/session/index.ts";
import { nexPermissionMode, unsupportedModeMessage } from "./claude-modes.ts";

/** What the orchestrator's `initialize` (or a control request before the first prompt) sets. */
export interface SessionSettings {
  /** Replaces nex's system prompt (a non-empty `systemPrompt`). */
  systemPrompt?: string;
  appendSystemPrompt?: string;
  model?: string;
  permissionMode?: string;
  /** A JSON Schema the final answer must meet (`jsonSchema`). */
  jsonSchema?: Record<string, unknown>;
}

/** What a control request can reach. */
export interface ControlContext {
  /** The open session, or null before the first user message opened it. */
  session(): AgentSession | null;
  /** Settings applied when the session opens. */
  settings: SessionSettings;
  /** Stops the prompt running now; with `cancelQueued`, also drops the prompts waiting. */
  interrupt(cancelQueued: boolean): { cancelled: number };
  model(): string | null;
  version: string;
}

export type ControlAnswer =
  | { ok: true; response: Record<string, unknown> }
  | { ok: false; error: string };

/**
 * Answers one control request from the orchestrator. Requests nex cannot honour get an error
 * response that says so; nothing is pretended.
 */
export async function answerControl(
  subtype: string,
  request: Record<string, unknown>,
  context: ControlContext,
): Promise<ControlAnswer> {
  const session = context.session();
  switch (subtype) {
    case "initialize":
      return initialize(request, context);
    case "interrupt": {
      const { cancelled } = context.interrupt(request.cancel_queued === true);
      return { ok: true, response: { still_queued: [], cancelled_count: cancelled } };
    }
    case "set_permission_mode": {
      const mode = typeof request.mode === "string" ? nexPermissionMode(request.mode) : null;
      if (!mode) return { ok: false, error: unsupportedModeMessage(String(request.mode)) };
      if (session) session.setPermissionMode(mode);
      else context.settings.permissionMode = mode;
      return { ok: true, response: { mode: request.mode } };
    }
    case "set_model": {
      if (typeof request.model !== "string" || request.model.trim() === "")
        return {
          ok: false,
          error: "set_model needs a model name; nex has no default model to go back to.",
        };
      if (!session) {
        context.settings.model = request.model;
        return { ok: true, response: {} };
      }
      const line = await session.setModel(request.model);
      return { ok: true, response: { message: line } };
    }
    case "mcp_status":
      return { ok: true, response: { mcpServers: [] } };
    case "get_settings":
      return { ok: true, response: { effective: {}, sources: [] } };
    default:
      return {
        ok: false,
        error: `nex does not support the control request "${subtype}"; it answers initialize, interrupt, set_permission_mode, set_model and mcp_status.`,
      };
  }
}

function initialize(request: Record<string, unknown>, context: ControlContext): ControlAnswer {
  const refusals: string[] = [];
  if (context.session())
    return { ok: false, error: "initialize must come before the first user message." };
  // The SDK sends [""] when its caller set no system prompt: nex then keeps its own.
  const system = Array.isArray(request.systemPrompt)
    ? request.systemPrompt.filter((part) => typeof part === "string").join("\n\n")
    : typeof request.systemPrompt === "string"
      ? request.systemPrompt
      : "";
  if (system.trim()) context.settings.systemPrompt = system;
  if (typeof request.appendSystemPrompt === "string" && request.appendSystemPrompt.trim())
    context.settings.appendSystemPrompt = request.appendSystemPrompt;
  if (request.jsonSchema && typeof request.jsonSchema === "object")
    context.settings.jsonSchema = request.jsonSchema as Record<string, unknown>;
  if (hasEntries(request.hooks)) refusals.push("hooks (nex runs no SDK hook callbacks)");
  if (Array.isArray(request.sdkMcpServers) && request.sdkMcpServers.length > 0)
    refusals.push("in-process SDK MCP servers");
  if (hasEntries(request.agents)) refusals.push("custom agents");
  if (refusals.length > 0)
    return {
      ok: false,
      error: `nex cannot honour ${refusals.join(", ")}; remove them from the options to drive nex.`,
    };
  const model = context.model();
  return {
    ok: true,
    response: {
      commands: [],
      agents: [],
      output_style: "default",
      available_output_styles: ["default"],
      models: model
        ? [{ value: model, displayName: model, description: "the model nex was given" }]
        : [],
      account: {},
      claude_code_version: context.version,
    },
  };
}

function hasEntries(value: unknown): boolean {
  return typeof value === "object" && value !== null && Object.keys(value).length > 0;
}

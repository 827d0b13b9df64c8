import { dirname, join } from "node:path";
import type { ReadRecord } from "../protocol/index.ts";
import type { SecretScrubber } from "../session/index.ts";
import {
  createToolHost,
  resultCapForWindow,
  type Tool,
  type ToolHostOptions,
  type WorkspaceToolHost,
} from "../tools/index.ts";
import type { NexConfig } from "./config.ts";
import { textRedaction } from "./event-redaction.ts";
import type { ApprovalPolicy } from "./nex-session.ts";
import { toolEnvironment } from "./session-secrets.ts";

/** What the session's tools are built from. */
export interface ToolParts {
  config: NexConfig;
  env: Record<string, string | undefined>;
  sessionId: string;
  secrets: SecretScrubber;
  ledger: ReadRecord[] | null;
  approvals: ApprovalPolicy;
  /** The window the session has now (/model and a 400 can change it). */
  window: () => number;
  /** Tools beyond the built-in ones (`tool-sources.ts`, skills, web). */
  extraTools: Tool[];
  /** Steps of a long call (research), shown as they happen. */
  onProgress?: ToolHostOptions["onProgress"];
  onOutput?: ToolHostOptions["onOutput"];
  /** The editor's unsaved buffers (`nex acp`). */
  editor?: ToolHostOptions["editor"];
  /** Tools that come and go (MCP servers' lists). */
  dynamicTools?: ToolHostOptions["dynamicTools"];
  /** Whether the model now takes images (`read_file` on an image returns it). */
  acceptsImages?: ToolHostOptions["acceptsImages"];
}

/** Step 6: the tools, confined to the workspace, with nex's own data kept out of their reach. */
export function sessionTools(parts: ToolParts): WorkspaceToolHost {
  const { config, env, sessionId, secrets, ledger } = parts;
  return createToolHost({
    workspace: config.workspace,
    mode: config.permissionMode,
    rules: config.commands,
    allowedPaths: config.allowedPaths,
    // With `--data-dir workspace` the journals and checkpoints sit in the workspace: tools keep out.
    privatePaths: [config.dataDir],
    checkpointDir: join(config.dataDir, "checkpoints", sessionId),
    env: toolEnvironment(env, config),
    redact: textRedaction(secrets),
    ...(ledger ? { ledger } : {}),
    sandbox: {
      ...config.sandbox,
      // Commands never read nex's journals, checkpoints or config.
      privatePaths: [config.dataDir, ...(config.configPath ? [dirname(config.configPath)] : [])],
    },
    unattended: parts.approvals === "refuse",
    // In a conversation a dev server outlives the prompt that started it; a one-task run ends its jobs.
    jobsOutlivePrompts: parts.approvals === "interactive",
    // A result's share follows the window the session has now.
    resultCap: () => resultCapForWindow(parts.window()),
    resultsDir: join(config.dataDir, "results", sessionId),
    extraTools: parts.extraTools,
    ...(parts.onProgress ? { onProgress: parts.onProgress } : {}),
    ...(parts.onOutput ? { onOutput: parts.onOutput } : {}),
    ...(parts.editor ? { editor: parts.editor } : {}),
    ...(parts.dynamicTools ? { dynamicTools: parts.dynamicTools } : {}),
    ...(parts.acceptsImages ? { acceptsImages: parts.acceptsImages } : {}),
  });
}

import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ReadRecord } from "../../protocol/index.ts";
import type { SecretScrubber } from "../../session/index.ts";
import {
  createToolHost,
  resultCapForWindow,
  type Tool,
  type ToolHostOptions,
  type WorkspaceToolHost,
} from "../../tools/index.ts";
// address-guard.ts alone: web/index.ts would load the whole web client at start-up.
import { privateKind } from "../../web/address-guard.ts";
import type { NexConfig } from "../config/index.ts";
import { consentDir, consentPlace } from "../consent/index.ts";
import { textRedaction, toolEnvironment } from "../secrets/index.ts";
import type { ApprovalPolicy } from "../session/index.ts";

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
  // The user's consent (and config) is out of reach of commands and of the file tools, wherever it is.
  const place = consentPlace({
    env,
    workspace: config.workspace,
    writable: config.sandbox.writable ?? [],
  });
  const consent = consentDir(place);
  // The sandbox hides only what exists: made now, the folder is hidden before any command runs, so
  // none can create a consent file or a config there (with `~` writable, say).
  if (!place.refused)
    try {
      mkdirSync(consent, { recursive: true, mode: 0o700 });
    } catch {
      // Unwritable home: nothing can be created there by a command either.
    }
  const configDir = config.configPath ? [dirname(config.configPath)] : [];
  const isWithin = (path: string, root: string) => path === root || path.startsWith(`${root}/`);
  return createToolHost({
    workspace: config.workspace,
    mode: config.permissionMode,
    rules: config.commands,
    allowedPaths: config.allowedPaths,
    // With `--data-dir workspace` the journals and checkpoints sit in the workspace: tools keep out.
    // So are the user's config and consent: what they say grants, and the model must not write it.
    privatePaths: [config.dataDir, consent, ...configDir].filter(
      (path) => !isWithin(config.workspace, path),
    ),
    checkpointDir: join(config.dataDir, "checkpoints", sessionId),
    env: toolEnvironment(env, config),
    redact: textRedaction(secrets),
    ...(ledger ? { ledger } : {}),
    sandbox: {
      ...config.sandbox,
      // Commands never read nex's journals, checkpoints or config.
      privatePaths: [config.dataDir, consent, ...configDir],
      // The proxy of `allowHosts` refuses what the web tools refuse: loopback, private, metadata.
      addressKind: privateKind,
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

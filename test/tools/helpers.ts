import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { PermissionMode, ToolInvocation, ToolOutcome } from "../../src/protocol/index.ts";
import {
  createToolHost,
  type ToolHostOptions,
  type WorkspaceToolHost,
} from "../../src/tools/index.ts";
import { scratchDir } from "../support/scratch-dir.ts";

/** A fresh workspace and a private checkpoint directory beside it. */
export interface Sandbox {
  root: string;
  workspace: string;
  checkpointDir: string;
  path(relative: string): string;
}

export function sandbox(): Sandbox {
  const root = realpathSync(scratchDir("nex-tools-"));
  const workspace = join(root, "ws");
  const checkpointDir = join(root, "data", "checkpoints", "s1");
  mkdirSync(workspace);
  return { root, workspace, checkpointDir, path: (relative) => join(workspace, relative) };
}

export function host(box: Sandbox, options: Partial<ToolHostOptions> = {}): WorkspaceToolHost {
  return createToolHost({
    workspace: box.workspace,
    checkpointDir: box.checkpointDir,
    mode: "ask" as PermissionMode,
    ...options,
  });
}

let callId = 0;

/** Runs one tool call the way the loop does. */
export function run(
  tools: WorkspaceToolHost,
  name: string,
  args: Record<string, unknown>,
  options: { turn?: number; signal?: AbortSignal } = {},
): Promise<ToolOutcome> {
  callId += 1;
  return tools.execute(
    { id: `call-${callId}`, name, args, turn: options.turn ?? 1 },
    options.signal ?? new AbortController().signal,
  );
}

/** A tool call as the loop hands it to the permissions. */
export function toolCall(name: string, args: Record<string, unknown>): ToolInvocation {
  return { id: "c", name, args, turn: 1 };
}

/** A bash call of `command`. */
export function bashCall(command: string): ToolInvocation {
  return toolCall("bash", { command });
}

import type { PermissionMode } from "../../protocol/index.ts";

/** Claude Code's permission modes that nex can honour, and nex's own names for them. */
const FROM_CLAUDE: Record<string, PermissionMode> = {
  default: "ask",
  acceptEdits: "auto_edit",
  bypassPermissions: "approve_all",
  plan: "plan",
  ask: "ask",
  auto_edit: "auto_edit",
  approve_all: "approve_all",
};

const TO_CLAUDE: Record<PermissionMode, string> = {
  ask: "default",
  auto_edit: "acceptEdits",
  approve_all: "bypassPermissions",
  plan: "plan",
};

/** nex's mode for a Claude (or nex) mode name; null for a mode nex has no equivalent of (dontAsk, auto). */
export function nexPermissionMode(mode: string): PermissionMode | null {
  return Object.hasOwn(FROM_CLAUDE, mode) ? (FROM_CLAUDE[mode] ?? null) : null;
}

/** The name Claude Code gives nex's mode. */
export function claudePermissionMode(mode: PermissionMode): string {
  return TO_CLAUDE[mode];
}

/** The sentence for a mode nex cannot take. */
export function unsupportedModeMessage(mode: string): string {
  return `nex has no permission mode "${mode}"; it takes default (ask), acceptEdits (auto_edit), bypassPermissions (approve_all) or plan.`;
}

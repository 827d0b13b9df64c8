// nex's permission modes as ACP session modes, so the editor's mode picker switches them.
import type { SessionModeState } from "@agentclientprotocol/sdk";
import type { PermissionMode } from "../protocol/index.ts";

const MODES: { id: PermissionMode; name: string; description: string }[] = [
  {
    id: "ask",
    name: "Ask",
    description: "Asks before every file change and command.",
  },
  {
    id: "auto_edit",
    name: "Auto edit",
    description: "Changes files without asking (undo reverts them); asks before commands.",
  },
  {
    id: "approve_all",
    name: "Yes to all",
    description:
      "Runs every action undo can repair without asking; refuses what undo could not repair.",
  },
  {
    id: "plan",
    name: "Plan",
    description: "Reads and proposes a plan; changes nothing (no edits, no changing commands).",
  },
];

// The words of the command line (`--yes`) and of the chat work too.
const ALIASES: Record<string, PermissionMode> = { yes: "approve_all" };

export function modeState(current: PermissionMode): SessionModeState {
  return { currentModeId: current, availableModes: MODES };
}

/** The permission mode an ACP mode id names, or null when it names none. */
export function modeOf(id: string): PermissionMode | null {
  return MODES.find((mode) => mode.id === id)?.id ?? ALIASES[id] ?? null;
}

export const MODE_IDS = MODES.map((mode) => mode.id);

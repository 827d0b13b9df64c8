import type { AgentTag } from "../../protocol/index.ts";
import type { ToolContext } from "../../tools/index.ts";
import type { NamedAgent } from "./agent-files.ts";
import type { ChildParent } from "./child-agent.ts";

/** The tools that start children: never given to a child (no delegation below a child). */
export const SUBAGENT_TOOLS = new Set([
  "delegate",
  "summarize",
  "reader",
  "map",
  "chunk_map",
  "deep_research",
]);
/** Session-wide tools a child does not get: the parent's checklist and its background jobs. */
const PARENT_ONLY = new Set(["todo_write", "jobs"]);

/** What the subagent tools share in one session. */
export class Subagents {
  private parent: ChildParent | null = null;
  private count = 0;
  private notesDir: string | null = null;
  /** Read-only children run a few at once; children that change files, one at a time. */
  readonly exploreGate = createGate(3);
  readonly workGate = createGate(1);
  readonly agents: NamedAgent[];

  constructor(agents: NamedAgent[]) {
    this.agents = agents;
  }

  /** The session, once it exists (the tools are built before it). */
  bind(parent: ChildParent): void {
    this.parent = parent;
  }

  /** Where readers keep their place and notes: a folder beside the session's journal. */
  keepReaderNotes(dir: string): void {
    this.notesDir = dir;
  }

  /** The readers' folder, or null to keep notes in memory only (no session to keep them beside). */
  readerNotesDir(): string | null {
    return this.notesDir;
  }

  session(): ChildParent {
    if (!this.parent) throw new Error("subagent tools used before the session was bound");
    return this.parent;
  }

  tag(kind: string, ctx: ToolContext): AgentTag {
    this.count += 1;
    return { id: `agent-${this.count}`, parentCallId: ctx.callId ?? "", kind };
  }
}

/** Which tools a child of this mode may call. */
export function modeTools(
  mode: "explore" | "work",
  only: string[] | null,
): (name: string, readOnly: boolean) => boolean {
  const named = only ? new Set(only.map(nexToolName)) : null;
  return (name, readOnly) =>
    !SUBAGENT_TOOLS.has(name) &&
    !PARENT_ONLY.has(name) &&
    (mode === "work" || readOnly) &&
    (named === null || named.has(name));
}

// Claude Code's agent files name its tools; nex's tools do the same jobs under these names.
const CLAUDE_NAMES: Record<string, string> = {
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Bash: "bash",
  Grep: "grep",
  Glob: "glob",
  LS: "list_dir",
  WebFetch: "web_fetch",
  WebSearch: "web_search",
};

function nexToolName(name: string): string {
  return CLAUDE_NAMES[name] ?? name;
}

/** A small counting gate: at most `limit` holders at once, the rest wait their turn (or the signal). */
export function createGate(limit: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> => {
    while (active >= limit) {
      if (signal.aborted) throw signal.reason ?? new Error("aborted");
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    active++;
    try {
      return await work();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

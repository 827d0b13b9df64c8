import type { ToolHost } from "../../protocol/index.ts";
import { ConfigError } from "../config/index.ts";

/** Which tools a run offers the model (`--tools`, `--disallowed-tools`). */
export interface ToolSelection {
  only?: string[];
  without?: string[];
}

/** Named groups of tools. */
const BUNDLES: Record<string, string[]> = {
  "read-only": ["read_file", "grep", "glob", "list_dir", "todo_write"],
  edit: ["read_file", "grep", "glob", "list_dir", "todo_write", "write_file", "edit_file"],
};

/** Claude Code's names for nex's tools, so an orchestrator's lists work unchanged. */
const CLAUDE_NAMES: Record<string, string> = {
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "edit_file",
  Bash: "bash",
  Grep: "grep",
  Glob: "glob",
  LS: "list_dir",
  TodoWrite: "todo_write",
};

/** The names a list stands for: bundles expanded, Claude's names translated; unknown names refused. */
function expand(names: string[], known: string[], flag: string): Set<string> {
  const out = new Set<string>();
  for (const raw of names) {
    // `Bash(git:*)`: a Claude rule names a tool and a pattern; nex takes or leaves the whole tool.
    const name = raw.replace(/\(.*\)$/, "");
    const bundle = BUNDLES[name];
    if (bundle) for (const tool of bundle) out.add(tool);
    else if (known.includes(name)) out.add(name);
    else if (Object.hasOwn(CLAUDE_NAMES, name)) out.add(CLAUDE_NAMES[name] as string);
    else
      throw new ConfigError(
        `${flag} names "${raw}", which is neither a tool nor a bundle. Tools: ${known.join(", ")}; bundles: ${Object.keys(BUNDLES).join(", ")}.`,
      );
  }
  return out;
}

/**
 * The tool host with only the selected tools: the model is shown only them, and a call to another is
 * refused before it runs (a model may call a tool it remembers from an earlier prompt).
 */
export function selectTools<T extends ToolHost>(host: T, selection: ToolSelection | undefined): T {
  if (!selection || (selection.only === undefined && selection.without === undefined)) return host;
  const known = host.specs().map((spec) => spec.name);
  const only = selection.only ? expand(selection.only, known, "--tools") : new Set(known);
  const without = expand(selection.without ?? [], known, "--disallowed-tools");
  const offered = (name: string) => only.has(name) && !without.has(name);
  return {
    ...host,
    specs: () => host.specs().filter((spec) => offered(spec.name)),
    async permission(call) {
      if (!offered(call.name))
        return {
          type: "deny",
          reason: `the tool ${call.name} is not available in this run (the caller limited the tools)`,
        };
      return host.permission(call);
    },
  };
}

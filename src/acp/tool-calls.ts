// How a nex tool call looks in an editor: its kind (the icon), a title, and the files it touches.
import { isAbsolute, resolve } from "node:path";
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";

const KINDS: Record<string, ToolKind> = {
  read_file: "read",
  list_dir: "read",
  write_file: "edit",
  edit_file: "edit",
  bash: "execute",
  grep: "search",
  glob: "search",
  todo_write: "think",
  web_fetch: "fetch",
  web_search: "fetch",
  research: "fetch",
  deep_research: "fetch",
  arxiv_search: "fetch",
};

/** The ACP kind of a nex tool; tools nex does not know by name (MCP, extra tools) are `other`. */
export function kindOf(name: string): ToolKind {
  return KINDS[name] ?? "other";
}

const text = (value: unknown): string | null =>
  typeof value === "string" && value.length > 0 ? value : null;

/** One short line, so a long command or pattern does not fill the editor's panel. */
function short(value: string, limit = 120): string {
  const line = value.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, limit)}…` : line;
}

/** What the call does, in the words a person would use. */
export function titleOf(name: string, args: Record<string, unknown>): string {
  const path = text(args.path);
  switch (name) {
    case "read_file":
      return path ? `Read ${path}` : "Read a file";
    case "write_file":
      return path ? `Write ${path}` : "Write a file";
    case "edit_file":
      return path ? `Edit ${path}` : "Edit a file";
    case "list_dir":
      return `List ${path ?? "the workspace"}`;
    case "bash": {
      const command = text(args.command);
      return command ? `Run \`${short(command)}\`` : "Run a command";
    }
    case "grep": {
      const pattern = text(args.pattern);
      const where = path ? ` in ${path}` : "";
      return pattern ? `Search for \`${short(pattern, 80)}\`${where}` : "Search file contents";
    }
    case "glob": {
      const pattern = text(args.pattern);
      return pattern ? `Find files matching \`${short(pattern, 80)}\`` : "Find files";
    }
    case "todo_write":
      return "Update the plan";
    default:
      return name;
  }
}

/** The files a call names, absolute (ACP paths are), with the line a read starts at. */
export function locationsOf(
  name: string,
  args: Record<string, unknown>,
  workspace: string,
): ToolCallLocation[] {
  const path = text(args.path);
  if (!path || path.startsWith("@results/")) return [];
  if (!["read_file", "write_file", "edit_file", "list_dir", "grep", "glob"].includes(name))
    return [];
  const absolute = isAbsolute(path) ? path : resolve(workspace, path);
  const offset = args.offset;
  return [
    name === "read_file" && typeof offset === "number" && Number.isInteger(offset) && offset > 0
      ? { path: absolute, line: offset }
      : { path: absolute },
  ];
}

/** The arguments of a call as the model sent them; `{}` when they are not a JSON object. */
export function parseArguments(argumentsText: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(argumentsText);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

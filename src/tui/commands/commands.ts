import type { PermissionMode } from "../../protocol/index.ts";

/** A slash command typed at the prompt. */
export type Command =
  | { type: "undo"; turns: number }
  | { type: "undo_list" }
  | { type: "compact" }
  /** `/diff`: what this session changed, per file. */
  | { type: "diff" }
  /** `/context`: what fills the model's window. */
  | { type: "context" }
  | { type: "model"; name: string }
  /** `/model` alone: what the endpoint serves. */
  | { type: "model_list" }
  | { type: "sessions" }
  | { type: "status" }
  | { type: "export"; path: string | null }
  | { type: "resume"; id: string }
  | { type: "resume_pick" }
  | { type: "clear" }
  | { type: "fork" }
  /** `/rewind` (target null: the picker), `/rewind N` (the plan), `/rewind N yes` (do it). */
  | { type: "rewind"; target: number | null; confirmed: boolean }
  | { type: "help" }
  | { type: "reasoning" }
  /** `/reasoning effort X`: how hard the model thinks from now on; null shows the setting. */
  | { type: "reasoning_effort"; effort: "low" | "medium" | "high" | "off" | null }
  | { type: "mcp" }
  /** `/bg`, `/bg ID`, `/bg stop ID`: the session's background jobs. */
  | { type: "bg"; args: string }
  | { type: "exit" }
  | { type: "mode"; mode: PermissionMode | null }
  /** A command that cannot run as typed; `message` says what to type instead. */
  | { type: "invalid"; message: string };

export const permissionModes: readonly PermissionMode[] = [
  "ask",
  "auto_edit",
  "approve_all",
  "plan",
];

/** The mode after `mode` in the Shift+Tab cycle. */
export function nextMode(mode: PermissionMode): PermissionMode {
  const index = permissionModes.indexOf(mode);
  return permissionModes[(index + 1) % permissionModes.length] ?? "ask";
}

/** What each permission mode means, in the words the mode indicator uses. */
export function modeLabel(mode: PermissionMode): string {
  switch (mode) {
    case "ask":
      return "ask before edits and commands";
    case "auto_edit":
      return "edits allowed, commands ask";
    case "approve_all":
      return "everything allowed";
    case "plan":
      return "read-only: the model plans, changes nothing";
  }
}

export const helpText = [
  "Enter sends the prompt. Alt+Enter, Shift+Enter (where the terminal reports it) or a trailing \\ starts a new line.",
  "Up/Down walk the prompt history. Esc or Ctrl-C interrupts a running request; while one runs, Enter queues what you typed and Esc then Enter steers with it (Esc twice interrupts). Ctrl-O opens what runs or just ran. Ctrl-C twice on an empty prompt exits.",
  "Ctrl-V pastes an image from the clipboard (wl-paste, xclip or macOS's own) as a path the prompt attaches.",
  "Shift+Tab cycles the permission mode (ask → auto_edit → approve_all → plan).",
  "",
  "/undo [n]\tundo the file changes of the last n prompts (default 1); /undo list shows each step",
  "/diff\twhat this session changed, per file, as a diff against undo's snapshots",
  "/context\twhat fills the model's window: system prompt, tools, messages, results, in tokens",
  "/compact\tsummarise the conversation now so it takes less of the context window",
  "/model [name]\tpick one of the endpoint's models (a list from the server), or switch to the one named",
  "/mode [name]\tcycle the permission mode, or set it: ask, auto_edit, approve_all, plan (read-only)",
  "/status\tmodel, endpoint, window and its source, context use, sandbox, session file",
  "/export [file]\twrite the conversation as a markdown transcript: into nex's data folder (its path is said), or into the file named",
  "/sessions\tlist the saved sessions of this workspace, each with its first prompt",
  "/resume [id]\tswitch to a saved session: a picker (first prompt, time, size), or the one named",
  "/rewind [n]\tgo back to before an earlier prompt: its files restored, the conversation cut",
  "/fork\tcopy this session under a new id and go on in the copy (the original stays)",
  "/clear\tstart a fresh conversation in the same workspace",
  "/bg [id]\tlist the background jobs, or show one's last lines; /bg stop ID stops it",
  "/init\thave the model write or update AGENTS.md (you approve the change)",
  "!command\trun a command yourself; it and its output join the conversation",
  "/reasoning\tshow the model's last reasoning in full (the chat shows it collapsed)",
  "/reasoning effort low|medium|high|off\thow hard the model thinks from the next request",
  "/mcp\tthe MCP servers: state, tools, last error",
  "/help\tthis help",
  "/exit\tquit (Ctrl-C twice does the same)",
].join("\n");

/** Whether `text` is `/name ...` for one of the user's command files. */
export function isCustomCommand(text: string, commands: readonly { name: string }[]): boolean {
  const name = /^\/([A-Za-z0-9][A-Za-z0-9:._-]*)(?:\s|$)/.exec(text.trim())?.[1];
  return name !== undefined && commands.some((command) => command.name === name);
}

/** The help, with the user's own commands and the skills the model may load: rows "name\ttext". */
export function helpWith(
  extensions:
    | {
        commands: { name: string; description: string | null; argumentHint: string | null }[];
        skills: { name: string; description: string }[];
      }
    | undefined,
): string {
  const lines = [helpText];
  const commands = extensions?.commands ?? [];
  if (commands.length > 0) {
    lines.push("", "Your commands (.nex/commands, .claude/commands, ~/.config/nex/commands):");
    for (const c of commands) {
      const usage = `/${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ""}`;
      lines.push(`${usage}\t${c.description ?? ""}`);
    }
  }
  const skills = extensions?.skills ?? [];
  if (skills.length > 0)
    lines.push(
      "",
      `Skills the model loads when a task matches: ${skills.map((s) => s.name).join(", ")}`,
    );
  return lines.join("\n");
}

/**
 * Parses a slash command, or returns null when the text is a prompt. A first word with a further
 * slash ("/etc/hosts is wrong") is a prompt, not a command.
 */
export function parseCommand(text: string): Command | null {
  const trimmed = text.trim();
  const match = /^\/([a-z]+)(?:\s+([\s\S]*))?$/.exec(trimmed);
  if (!match) return null;
  const name = match[1] ?? "";
  const arg = (match[2] ?? "").trim();
  switch (name) {
    case "undo": {
      if (arg === "") return { type: "undo", turns: 1 };
      if (arg === "list") return { type: "undo_list" };
      if (!/^\d+$/.test(arg) || Number(arg) < 1) {
        return {
          type: "invalid",
          message: `/undo takes a number of prompts (1 or more), or "list", not "${arg}". Example: /undo 2`,
        };
      }
      return { type: "undo", turns: Number(arg) };
    }
    case "compact":
      return { type: "compact" };
    case "diff":
      return { type: "diff" };
    case "context":
      return { type: "context" };
    case "model":
      if (arg === "") return { type: "model_list" };
      return { type: "model", name: arg };
    case "sessions":
      return { type: "sessions" };
    case "status":
      return { type: "status" };
    case "export":
      return { type: "export", path: arg === "" ? null : arg };
    case "resume":
      if (arg === "") return { type: "resume_pick" };
      return { type: "resume", id: arg };
    case "clear":
      return { type: "clear" };
    case "fork":
      return { type: "fork" };
    case "rewind": {
      if (arg === "") return { type: "rewind", target: null, confirmed: false };
      const parts = /^(\d+)(?:\s+(yes))?$/.exec(arg);
      if (!parts || Number(parts[1]) < 1)
        return {
          type: "invalid",
          message: `/rewind takes a prompt number from its list, optionally followed by "yes", not "${arg}". Example: /rewind 2`,
        };
      return { type: "rewind", target: Number(parts[1]), confirmed: parts[2] === "yes" };
    }
    case "help":
      return { type: "help" };
    case "reasoning": {
      if (arg === "") return { type: "reasoning" };
      const [word, value = "", ...more] = arg.split(/\s+/);
      if (word !== "effort" || more.length > 0)
        return {
          type: "invalid",
          message: `/reasoning shows the last reasoning; /reasoning effort low|medium|high|off sets how hard the model thinks. "${arg}" is neither.`,
        };
      if (value === "") return { type: "reasoning_effort", effort: null };
      const effort = (["low", "medium", "high", "off"] as const).find((e) => e === value);
      return effort
        ? { type: "reasoning_effort", effort }
        : {
            type: "invalid",
            message: `Unknown reasoning effort "${value}". Use /reasoning effort low, medium, high or off.`,
          };
    }
    case "mcp":
      return { type: "mcp" };
    case "bg":
      return { type: "bg", args: arg };
    case "exit":
    case "quit":
      return { type: "exit" };
    case "mode": {
      if (arg === "") return { type: "mode", mode: null };
      const mode = permissionModes.find((m) => m === arg);
      if (!mode)
        return {
          type: "invalid",
          message: `Unknown mode "${arg}". Modes: ${permissionModes.join(", ")}.`,
        };
      return { type: "mode", mode };
    }
    // The session's own commands: sent as prompts.
    case "init":
      return null;
    default:
      return { type: "invalid", message: `Unknown command /${name}. Type /help for the list.` };
  }
}

import { closestMatch } from "leven";
import { runFlagOptions } from "./run-flags.ts";

/** One command of the command line: what it does, how it is called, and the flags it takes. */
export interface CommandSpec {
  usage: string;
  about: string;
  /** Its own flags (besides the common ones), with their help lines. */
  flags: readonly string[];
  /** Help lines for its own flags. */
  options: string;
}

/** Flags every command takes: where the endpoint, the workspace, the data and the config are. */
export const COMMON_FLAGS = [
  "model",
  "base-url",
  "provider",
  "endpoint",
  "cwd",
  "mode",
  "yes",
  "sandbox",
  "allow-host",
  "max-turns",
  "reasoning-effort",
  "data-dir",
  "config",
  "mcp-config",
  "no-mcp",
  "help",
] as const;

export const COMMON_HELP = `Common options (every command):
  --model NAME, -m      model name (or NEX_MODEL); ENDPOINT:NAME picks a named endpoint's model
  --endpoint NAME, -e   the config's named endpoint NAME
  --base-url URL        endpoint (or OPENAI_BASE_URL; ANTHROPIC_BASE_URL with --provider anthropic)
  --provider NAME       openai (default) or anthropic
  --cwd DIR, -C         workspace (default: the current directory)
  --mode MODE           permissions: ask (default), auto_edit, approve_all, plan; --yes, -y: approve_all
  --sandbox MODE        workspace-write (default), read-only, off
  --allow-host HOST     a host sandboxed commands may reach through nex's proxy (npm, pypi, crates,
                        github, a name, *.domain, an address; repeatable)
  --max-turns N         stop after N model turns (default 50)
  --reasoning-effort E  low, medium, high, off
  --data-dir DIR        where sessions are kept; --config FILE: the config file
  --mcp-config FILE     MCP servers from a file like Claude Code's .mcp.json (repeatable);
                        --no-mcp: start none (the config's, the project's)`;

const RUN_FLAGS = [...Object.keys(runFlagOptions()), "json", "session", "last"];
const SESSION_FLAGS = ["session", "last"];

const RUN_OPTIONS = `Options:
  --json, --output-format F   text (default), json-events (--json), stream-json or json
  --input-format F            text, or stream-json (messages and control requests on stdin)
  --prompt-file FILE          the task from a file ("-" as the task reads stdin)
  --system-prompt[-file], --append-system-prompt   replace or extend nex's system prompt
  --tools LIST, --disallowed-tools LIST            the tools offered
  --session-id NAME           a stable name: the first run creates the session, later runs resume it
  --last, --session ID        continue the last session, or session ID
  --output-last-message FILE  write the final answer to FILE
  --output-schema FILE        the answer must be JSON valid against this schema (exit 6 if not)
  --max-time 15m              time budget (exit 5 when spent)
  --inbox FILE                JSON lines that reach the model at the next turn boundary
  --role NAME                 add the role prompt roles/NAME.md (project's .nex/roles/, then the user's)
  --permission-prompt-tool stdio   ask the orchestrator about approvals (stream-json)
Claude Code's other flags are accepted with no effect or refused, each with the reason.`;

export const COMMANDS: Record<string, CommandSpec> = {
  chat: {
    usage:
      "nex [chat] [--last | --session ID] [--role NAME] | nex --chat DIR|NAME [--role NAME] [--approval-timeout S]",
    about:
      "open the interactive chat in the current directory, or serve a chat folder's files (--chat)",
    flags: [
      ...SESSION_FLAGS,
      "chat",
      "approval-timeout",
      "role",
      "resume",
      "continue",
      "permission-mode",
      "dangerously-skip-permissions",
    ],
    options: `Options:
  --last, --session ID  continue the last session, or session ID
  --role NAME           add the role prompt roles/NAME.md (project's .nex/roles/, then the user's)
  --chat DIR|NAME       serve one conversation from a chat folder's files: inbox.jsonl in,
                        .streaming and outbox.jsonl out, one handler at a time (docs/chat-files.md);
                        a NAME is looked up under the config's "chatRoot"
  --approval-timeout S  with --chat: how long an approval asked in the chat waits for its
                        answer (default 600 s; 0 asks none, as nex run does)`,
  },
  run: {
    usage: 'nex run [options] "task"',
    about: "work on a task headless: progress on stderr, the answer on stdout",
    flags: RUN_FLAGS,
    options: RUN_OPTIONS,
  },
  resume: {
    usage: 'nex resume [id | --last] ["task"]',
    about: "continue a session (interactive; with a task, headless as nex run)",
    flags: RUN_FLAGS,
    options: `${RUN_OPTIONS}`,
  },
  sessions: {
    usage: "nex sessions [--json] | nex sessions show [ID]",
    about:
      "list the sessions of this workspace, newest first; show one (default: the last) with its summary",
    flags: ["json"],
    options: "Options:\n  --json  one JSON object per session, as a JSON array",
  },
  compact: {
    usage: "nex compact [id | --last]",
    about: "summarise a session's older messages so it fits the model again",
    flags: SESSION_FLAGS,
    options: "Options:\n  --last, --session ID  the session (default: the last)",
  },
  undo: {
    usage: "nex undo [n] [--session ID] [--list [--json]] [--include-unsure]",
    about:
      "undo the file changes of the last n prompts (default 1) of the last session that changed files here",
    flags: [...SESSION_FLAGS, "list", "include-unsure", "json"],
    options: `Options:
  --session ID, --last  the session (default: the last that changed files here)
  --list                show what each step restores, change nothing
  --json                with --list: the steps as a JSON array
  --include-unsure      also revert what changed during a command that does not name it`,
  },
  mcp: {
    usage: "nex mcp list|test|add|remove|approve|login|help [name] [...]",
    about:
      "MCP servers: state and tools, try one, add or remove one, approve a project's .mcp.json, sign in with OAuth",
    flags: ["transport", "env", "header", "json"],
    options: `Options:
  --transport stdio|http|sse   nex mcp add: how the server is reached
  --env KEY=VALUE              nex mcp add: an environment variable of a stdio server (repeatable)
  --header "Name: value"       nex mcp add: an HTTP header of a remote server (repeatable)
  --json                       nex mcp list, nex mcp test: the servers as a JSON array
See \`nex mcp help\` for every action.`,
  },
  demo: {
    usage: "nex demo [scenario]",
    about: "watch nex handle a misbehaving endpoint (built in, no network)",
    flags: [],
    options: "",
  },
  acp: {
    usage: "nex acp",
    about: "serve the Agent Client Protocol on stdin/stdout, for editors (Zed, ...)",
    flags: [],
    options: "",
  },
  doctor: {
    usage: "nex doctor [--json]",
    about:
      "check the endpoint before trusting it: reachable, key, model, streaming, tool calls, limits",
    flags: ["json"],
    options: "Options:\n  --json  a JSON report",
  },
  hooks: {
    usage: "nex hooks [approve] [--json]",
    about: "list the hooks that run here; approve the project's (.claude/settings.json)",
    flags: ["json"],
    options: "Options:\n  --json  the hooks as a JSON array",
  },
  commands: {
    usage: "nex commands [approve [NAME]] [--json]",
    about:
      "list the slash commands from files, where each comes from; approve the project's that run shell lines",
    flags: ["json"],
    options: "Options:\n  --json  the commands as a JSON array",
  },
  completion: {
    usage: "nex completion bash|zsh|fish",
    about: "print a shell completion script (e.g. `nex completion bash >> ~/.bashrc`)",
    flags: [],
    options: "",
  },
};

/** `nex <command> --help`. */
export function commandHelp(name: string): string {
  const spec = COMMANDS[name] as CommandSpec;
  return [`nex ${name}: ${spec.about}`, "", `Usage: ${spec.usage}`, "", spec.options, COMMON_HELP]
    .filter((part, i, all) => part !== "" || all[i - 1] !== "")
    .join("\n");
}

/** Whether command `name` takes flag `flag`. */
export function takesFlag(name: string, flag: string): boolean {
  const spec = COMMANDS[name];
  return (
    (COMMON_FLAGS as readonly string[]).includes(flag) || (spec?.flags.includes(flag) ?? false)
  );
}

/** Why `flag` is refused for `command`, and where it belongs. */
export function misplacedFlag(command: string, flag: string): string {
  const owners = Object.keys(COMMANDS).filter((name) => COMMANDS[name]?.flags.includes(flag));
  const where =
    owners.length > 0
      ? ` (it is an option of ${owners.map((name) => `nex ${name}`).join(", ")})`
      : "";
  return `nex ${command} does not take --${flag}${where}. Run \`nex ${command} --help\` for its options.`;
}

/** A close known flag for a mistyped one, e.g. "modle" → "model". */
export function closestFlag(flag: string, known: readonly string[]): string | undefined {
  // Two letters swapped (--modle) is the commonest typo, and two edits to Levenshtein.
  const letters = [...flag].sort().join("");
  const swapped = known.find((name) => [...name].sort().join("") === letters);
  if (swapped) return swapped;
  return closestMatch(flag, known, { maxDistance: Math.max(1, Math.min(3, flag.length >> 2)) });
}

/** A close command name for a mistyped one, e.g. "sesions" → "sessions". */
export function closestCommand(word: string): string | undefined {
  return closestMatch(word, Object.keys(COMMANDS), { maxDistance: 2 });
}

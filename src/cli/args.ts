import { parseArgs } from "node:util";
import type { McpCommand } from "../runtime/mcp/index.ts";
import {
  COMMANDS,
  closestCommand,
  closestFlag,
  commandHelp,
  misplacedFlag,
  takesFlag,
} from "./commands.ts";
import { type RunIo, readRunFlags, runFlagOptions } from "./run-flags.ts";

/** A parsed command line. */
export type Command =
  | { type: "help"; text: string }
  | { type: "completion"; shell: string }
  | { type: "chat"; options: CommonOptions; resume: string | null; role?: string }
  | {
      type: "chat-files";
      options: CommonOptions;
      chat: string;
      role?: string;
      /** `--approval-timeout`: seconds a question asked in the chat waits; 0 asks none. */
      approvalTimeout?: number;
    }
  | { type: "run"; options: CommonOptions; task: string; resume: string | null; io: RunIo }
  | { type: "sessions"; options: CommonOptions }
  | { type: "session-show"; options: CommonOptions; id: string }
  | { type: "compact"; options: CommonOptions; session: string }
  | {
      type: "undo";
      options: CommonOptions;
      session: string;
      turns: number;
      list: boolean;
      includeUnsure: boolean;
    }
  | { type: "demo"; options: CommonOptions; scenario: string | null }
  | { type: "doctor"; options: CommonOptions }
  | { type: "hooks"; options: CommonOptions; approve: boolean }
  | { type: "commands"; options: CommonOptions; approve: boolean; name: string | null }
  | { type: "acp"; options: CommonOptions }
  | { type: "mcp"; options: CommonOptions; mcp: McpCommand };

/** Options every command accepts. */
export interface CommonOptions {
  model?: string | undefined;
  baseUrl?: string | undefined;
  provider?: string | undefined;
  cwd?: string | undefined;
  permissionMode?: string | undefined;
  yes: boolean;
  maxTurns?: number | undefined;
  json: boolean;
  dataDir?: string | undefined;
  config?: string | undefined;
  sandbox?: string | undefined;
  /** `--allow-host HOST`, repeated or comma-separated: hosts commands may reach through nex's proxy. */
  allowHosts?: string[] | undefined;
  reasoningEffort?: string | undefined;
  endpoint?: string | undefined;
  mcpConfig?: string[] | undefined;
  noMcp?: boolean | undefined;
}

/** A command line nex cannot make sense of; the message says how to fix it. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

export const HELP = `nex: a coding agent that never reports an action that did not fully happen

Usage:
  nex                          open the interactive chat in the current directory
  nex run [options] "task"     work on a task headless: progress on stderr, the answer on stdout
  nex resume [id|--last]       continue a session (interactive; add "task" to continue headless)
  nex sessions [--json]        list sessions (--json: as a JSON array); nex sessions show ID: one
                               session, with the summary nex keeps of it
  nex compact [id|--last]      summarise a session's older messages so it fits the model again
  nex undo [n] [--session id]  undo the file changes of the last n prompts (default 1) of the last
                               session that changed files here; --list shows what each step restores
                               (--json: as a JSON array); --include-unsure also reverts what changed
                               during a command that does not name it (undo leaves that alone: it
                               may be someone else's)
  nex mcp list|test|add|remove|approve|login
                               MCP servers: state and tools, try one, add or remove one, approve a
                               project's .mcp.json, sign in with OAuth (nex mcp help)
  nex demo [scenario]          watch nex handle a misbehaving endpoint (built in, no network)
  nex acp                      serve the Agent Client Protocol on stdin/stdout, for editors (Zed, ...)
  nex doctor                   check the endpoint before trusting it: reachable, key, model, streaming,
                               tool calls, limits, honest truncation (--json for a JSON report)
  nex hooks [approve]          list the hooks that run here (--json: as a JSON array); approve the
                               project's (.claude/settings.json)
  nex commands [approve [NAME]]
                               list the slash commands from files, where each comes from (--json: as a
                               JSON array); approve the project's that run shell lines
                               (.claude/commands, .nex/commands)
  nex completion bash|zsh|fish print a shell completion script (source <(nex completion bash))
  nex help COMMAND             a command's own help and options (or nex COMMAND --help)

Options:
  --model NAME          model name (or NEX_MODEL; default: the endpoint's only model); ENDPOINT:NAME
                        picks a named endpoint of the config too
  --endpoint NAME, -e   use the config's named endpoint NAME (its server, key variable and models)
  --base-url URL        endpoint (or OPENAI_BASE_URL; ANTHROPIC_BASE_URL with --provider anthropic)
  --provider NAME       openai (any OpenAI-compatible server, default) or anthropic
  --cwd DIR             workspace (default: the current directory)
  --mode MODE           permissions: ask (default), auto_edit, approve_all, plan (read-only)
  --yes, -y             approve every action undo can repair (same as --mode approve_all)
  --sandbox MODE        commands run confined: workspace-write (default), read-only, off (unconfined)
  --allow-host HOST     with the network off, commands may still reach HOST through nex's proxy
                        (repeatable; presets npm, pypi, crates, github; see docs/sandbox-network.md)
  --max-turns N         stop after N model turns (default 50)
  --reasoning-effort E  how hard a reasoning model thinks: low, medium, high, off (default: the
                        server's; sent as reasoning_effort, or as Anthropic's thinking budget)
  --json                print the event stream as JSON lines on stdout (nex run; a JSON report for nex doctor)
  --output-format F     nex run: text (default), json-events (same as --json), stream-json or json
                        (Claude Code's envelope; --include-partial-messages adds stream_event lines)
  --input-format F      text, or stream-json: user messages and control requests as lines on stdin
  --permission-prompt-tool stdio   ask the orchestrator about approvals over stream-json (can_use_tool)
  --prompt-file FILE    the task from a file ("-" as the task reads it from stdin)
  --system-prompt TEXT, --system-prompt-file FILE   replace nex's system prompt; --append-system-prompt adds
  --tools LIST, --disallowed-tools LIST   tools offered (names, Claude's names, or read-only / edit)
  --session-id NAME     a stable name: the first run creates the session, later runs resume it
  --output-last-message FILE   write the final answer to FILE
  --output-schema FILE  the final answer must be JSON valid against this schema (one retry, else exit 6)
  --max-time 15m        time budget: at 80% the model is told to wrap up, at 100% nex stops (exit 5)
  --inbox FILE          a JSON-lines file whose new lines reach the model at the next turn boundary
  --role NAME           add the role prompt roles/NAME.md (.nex/roles/, then ~/.config/nex/roles/)
  --chat DIR|NAME       serve one conversation from the files of a chat folder (docs/chat-files.md)
  --approval-timeout S  with --chat: seconds an approval asked in the chat waits (default 600; 0: none)
  --data-dir DIR        where sessions are kept (default: $XDG_DATA_HOME/nex; "workspace" for ./.nex)
  --config FILE         config file (default: $XDG_CONFIG_HOME/nex/config.json)
  --mcp-config FILE     MCP servers from a file like Claude Code's .mcp.json (repeatable)
  --no-mcp              start none of the MCP servers the config or the project names
  --version, --help

Keys come from OPENAI_API_KEY or ANTHROPIC_API_KEY and are never written anywhere.
Claude Code's other flags are accepted with no effect or refused, each with the reason (docs/headless.md).
Exit status: 0 done, 1 model or endpoint failure, 2 bad command line, 3 refused configuration,
4 nothing changed (every change the model tried was refused, e.g. needed approval), 5 --max-time spent,
6 answer not valid against --output-schema, 130 Ctrl-C (SIGINT),
143 SIGTERM, 129 SIGHUP (a signal stops the running commands and saves the session).`;

const MCP_ACTIONS = ["list", "test", "add", "remove", "approve", "login", "help"];

type Values = ReturnType<typeof parse>["values"];

/** `nex undo [N]`: how many prompts to undo, of which session. */
function undoCommand(
  rest: string[],
  values: Values,
  options: CommonOptions,
  session: string | null,
): Command {
  const turns = rest[0] === undefined ? 1 : Number(rest[0]);
  if (!Number.isInteger(turns) || turns < 1) {
    throw new UsageError(
      `nex undo takes a number of prompts to undo (1 or more), not "${rest[0]}". See what each step restores with \`nex undo --list\`.`,
    );
  }
  if (values.json && !values.list)
    throw new UsageError(
      "nex undo --json goes with --list (`nex undo --list --json`): undoing itself prints its account as text.",
    );
  return {
    type: "undo",
    options,
    session: session ?? "last",
    turns,
    list: values.list === true,
    includeUnsure: values["include-unsure"] === true,
  };
}

/** `nex mcp ACTION [NAME] [TARGET...]`. */
function mcpCommand(rest: string[], values: Values, options: CommonOptions): Command {
  if (rest[0] !== undefined && !MCP_ACTIONS.includes(rest[0]))
    throw new UsageError(
      `Unknown command "nex mcp ${rest[0]}". Use one of: ${MCP_ACTIONS.join(", ")} (nex mcp help).`,
    );
  return {
    type: "mcp",
    options,
    mcp: {
      action: rest[0] ?? "list",
      name: rest[1] ?? null,
      target: rest.slice(2),
      transport: values.transport,
      env: values.env ?? [],
      headers: values.header ?? [],
      json: values.json === true,
    },
  };
}

/** `nex help [COMMAND]` or `--help`: the global help or one command's, else null. */
function helpRequest(values: Values, positionals: string[]): Command | null {
  const named = positionals[0];
  if (named === "help") {
    const topic = positionals[1];
    if (topic === undefined) return { type: "help", text: HELP };
    if (topic in COMMANDS) return { type: "help", text: commandHelp(topic) };
    throw new UsageError(unknownCommand(topic));
  }
  if (!values.help) return null;
  if (named !== undefined && named in COMMANDS) return { type: "help", text: commandHelp(named) };
  return { type: "help", text: HELP };
}

/** Parses argv (without the node and script paths). */
export function parseCommand(argv: string[]): Command {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(parseErrorMessage(error as Error & { code?: string }, argv));
  }
  const { values, positionals } = parsed;
  const help = helpRequest(values, positionals);
  if (help) return help;
  const claude = values as Record<string, string | boolean | undefined>;
  // `claude -p "task"` and `nex -p "task"` alike are a headless run, as is a bare stream-json command
  // line (the Claude Agent SDK starts its executable with flags only).
  const claudeRun = values.p || (positionals.length === 0 && claude["input-format"] !== undefined);
  const [verb, ...rest] =
    claudeRun && positionals[0] !== "run" ? ["run", ...positionals] : positionals;
  const resumeFlag = typeof claude.resume === "string" ? claude.resume : undefined;
  const session = values.last || claude.continue ? "last" : (values.session ?? resumeFlag ?? null);
  const command = verb === undefined ? "chat" : verb;
  if (command in COMMANDS) {
    for (const flag of Object.keys(values)) {
      if (!takesFlag(command, flag)) throw new UsageError(misplacedFlag(command, flag));
    }
  }
  const options = commonOptions(values);
  const role = typeof claude.role === "string" ? claude.role : undefined;
  switch (verb) {
    case undefined:
    case "chat":
      if (typeof claude.chat === "string")
        return {
          type: "chat-files",
          options,
          chat: claude.chat,
          ...(role ? { role } : {}),
          ...approvalTimeout(values["approval-timeout"]),
        };
      return { type: "chat", options, resume: session, ...(role ? { role } : {}) };
    case "run": {
      const task = rest.join(" ").trim();
      return { type: "run", options, task, resume: session, io: runIo(values, task) };
    }
    case "resume": {
      // `nex resume ID [task]`, or with --last / --session ID every word is the task.
      const named = values.last || values.session !== undefined;
      const [id, ...taskWords] = named ? [undefined, ...rest] : rest;
      // No id at all: the chat opens the session picker ("pick"; without a terminal, the last session).
      const target = values.last ? "last" : (values.session ?? id ?? "pick");
      const task = taskWords.join(" ").trim();
      return task
        ? { type: "run", options, task, resume: target, io: runIo(values, task) }
        : { type: "chat", options, resume: target };
    }
    case "sessions":
      if (rest[0] === "show") return { type: "session-show", options, id: rest[1] ?? "last" };
      return { type: "sessions", options };
    case "compact":
      return {
        type: "compact",
        options,
        session: values.last ? "last" : (rest[0] ?? session ?? "last"),
      };
    case "undo":
      return undoCommand(rest, values, options, session);
    case "demo":
      return { type: "demo", options, scenario: rest[0] ?? null };
    case "completion":
      if (rest.length !== 1 || !["bash", "zsh", "fish"].includes(rest[0] as string))
        throw new UsageError(
          `nex completion takes one shell: bash, zsh or fish (e.g. \`nex completion bash >> ~/.bashrc\`), not "${rest.join(" ")}".`,
        );
      return { type: "completion", shell: rest[0] as string };
    case "hooks":
      if (rest.length > 1 || (rest[0] !== undefined && rest[0] !== "approve"))
        throw new UsageError(
          `nex hooks lists the hooks; \`nex hooks approve\` approves the project's. Not "${rest.join(" ")}".`,
        );
      if (rest[0] === "approve" && values.json)
        throw new UsageError(
          "nex hooks --json lists the hooks; `nex hooks approve` takes no --json.",
        );
      return { type: "hooks", options, approve: rest[0] === "approve" };
    case "commands":
      if (rest.length > 2 || (rest[0] !== undefined && rest[0] !== "approve"))
        throw new UsageError(
          `nex commands lists the commands from files; \`nex commands approve [NAME]\` approves the project's. Not "${rest.join(" ")}".`,
        );
      if (rest[0] === "approve" && values.json)
        throw new UsageError(
          "nex commands --json lists the commands; `nex commands approve` takes no --json.",
        );
      return {
        type: "commands",
        options,
        approve: rest[0] === "approve",
        name: rest[1]?.replace(/^\//, "") ?? null,
      };
    case "mcp":
      return mcpCommand(rest, values, options);
    case "doctor":
      if (rest.length > 0)
        throw new UsageError(
          `nex doctor takes no arguments, not "${rest.join(" ")}"; choose the endpoint with --base-url, --provider and --model.`,
        );
      return { type: "doctor", options };
    case "acp":
      if (rest.length > 0)
        throw new UsageError(
          `nex acp takes no arguments, not "${rest.join(" ")}"; the editor sends the prompts over the protocol.`,
        );
      return { type: "acp", options };
    default: {
      const near = rest.length === 0 ? closestCommand(verb) : undefined;
      if (near) throw new UsageError(unknownCommand(verb));
      throw new UsageError(
        `Unknown command "${verb}". To give nex a task, use: nex run "${[verb, ...rest].join(" ")}"`,
      );
    }
  }
}

function unknownCommand(word: string): string {
  const near = closestCommand(word);
  const hint = near ? ` Did you mean \`nex ${near}\`?` : "";
  return `Unknown command "${word}".${hint} Run \`nex --help\` for the commands.`;
}

/** node:util's parse errors, in nex's words: the flag, a close one when it is a typo, where help is. */
function parseErrorMessage(error: Error & { code?: string }, argv: string[]): string {
  const verb = argv.find((word) => !word.startsWith("-"));
  const help = verb !== undefined && verb in COMMANDS ? `nex ${verb} --help` : "nex --help";
  const unknown = /^Unknown option '(-{1,2})([^']+)'/.exec(error.message);
  if (error.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && unknown) {
    const [, dashes, name] = unknown as unknown as [string, string, string];
    const near = closestFlag(name, Object.keys(OPTIONS));
    const hint = near ? ` Did you mean --${near}?` : "";
    return `Unknown option ${dashes}${name}.${hint} Run \`${help}\` for the options.`;
  }
  const missing = /^Option '([^']+)' argument missing/.exec(error.message);
  if (missing) return `${missing[1]} needs a value. Run \`${help}\` for the options.`;
  return `${error.message.replace(/\.$/, "")}. Run \`${help}\` for the options.`;
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
}

const OPTIONS = {
  model: { type: "string", short: "m" },
  "base-url": { type: "string" },
  provider: { type: "string" },
  cwd: { type: "string", short: "C" },
  mode: { type: "string" },
  sandbox: { type: "string" },
  "allow-host": { type: "string", multiple: true },
  yes: { type: "boolean", short: "y" },
  "max-turns": { type: "string" },
  "reasoning-effort": { type: "string" },
  endpoint: { type: "string", short: "e" },
  json: { type: "boolean" },
  "data-dir": { type: "string" },
  config: { type: "string" },
  "mcp-config": { type: "string", multiple: true },
  "no-mcp": { type: "boolean" },
  transport: { type: "string" },
  env: { type: "string", multiple: true },
  header: { type: "string", multiple: true },
  session: { type: "string" },
  last: { type: "boolean" },
  list: { type: "boolean" },
  "include-unsure": { type: "boolean" },
  chat: { type: "string" },
  "approval-timeout": { type: "string" },
  help: { type: "boolean", short: "h" },
  ...runFlagOptions(),
} as const;

function approvalTimeout(value: string | undefined): { approvalTimeout?: number } {
  if (value === undefined) return {};
  const seconds = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(seconds) || seconds > 86_400)
    throw new UsageError(
      `--approval-timeout ${value} is not a number of seconds from 0 to 86400 (0: ask no approvals in the chat).`,
    );
  return { approvalTimeout: seconds };
}

function runIo(values: ReturnType<typeof parse>["values"], task: string): RunIo {
  try {
    return readRunFlags(values, task);
  } catch (error) {
    throw new UsageError(`${(error as Error).message} Run \`nex --help\` for the options.`);
  }
}

function commonOptions(values: ReturnType<typeof parse>["values"]): CommonOptions {
  let maxTurns: number | undefined;
  if (values["max-turns"] !== undefined) {
    maxTurns = Number(values["max-turns"]);
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      throw new UsageError(
        `--max-turns takes a whole number of 1 or more, not "${values["max-turns"]}".`,
      );
    }
  }
  if (values["no-mcp"] && values["mcp-config"])
    throw new UsageError(
      "--no-mcp starts no MCP server and --mcp-config names servers to start: give one of them.",
    );
  const claude = values as Record<string, string | boolean | undefined>;
  const yes = values.yes === true || claude["dangerously-skip-permissions"] === true;
  const claudeMode =
    typeof claude["permission-mode"] === "string" ? claude["permission-mode"] : undefined;
  const mode = claudeMode === undefined ? values.mode : nexModeName(claudeMode);
  return {
    model: values.model,
    baseUrl: values["base-url"],
    provider: values.provider,
    cwd: values.cwd,
    permissionMode: yes ? "approve_all" : mode,
    yes,
    maxTurns,
    json: values.json ?? false,
    dataDir: values["data-dir"],
    config: values.config,
    sandbox: values.sandbox,
    allowHosts: values["allow-host"],
    reasoningEffort: values["reasoning-effort"],
    endpoint: values.endpoint,
    mcpConfig: values["mcp-config"],
    noMcp: values["no-mcp"] === true,
  };
}

// Claude Code's mode names, for orchestrators that pass them; nex's own pass through.
function nexModeName(mode: string): string {
  const claude: Record<string, string> = {
    default: "ask",
    acceptEdits: "auto_edit",
    bypassPermissions: "approve_all",
  };
  if (Object.hasOwn(claude, mode)) return claude[mode] as string;
  if (["plan", "ask", "auto_edit", "approve_all"].includes(mode)) return mode;
  throw new UsageError(
    `--permission-mode takes default, acceptEdits, bypassPermissions or plan (or nex's ask, auto_edit, approve_all), not "${mode}"; nex has no dontAsk mode.`,
  );
}

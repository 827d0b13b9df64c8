import { parseArgs } from "node:util";

/** A parsed command line. */
export type Command =
  | { type: "help" }
  | { type: "chat"; options: CommonOptions; resume: string | null }
  | { type: "run"; options: CommonOptions; task: string; resume: string | null }
  | { type: "sessions"; options: CommonOptions }
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
  | { type: "doctor"; options: CommonOptions };

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
  nex sessions                 list sessions
  nex compact [id|--last]      summarise a session's older messages so it fits the model again
  nex undo [n] [--session id]  undo the file changes of the last n prompts (default 1) of the last
                               session that changed files here; --list shows what each step restores;
                               --include-unsure also reverts what changed during a command that
                               does not name it (undo leaves that alone: it may be someone else's)
  nex demo [scenario]          watch nex handle a misbehaving endpoint (built in, no network)
  nex doctor                   check the endpoint before trusting it: reachable, key, model, streaming,
                               tool calls, limits, honest truncation (--json for a JSON report)

Options:
  --model NAME          model name (or NEX_MODEL; default: the endpoint's only model)
  --base-url URL        endpoint (or OPENAI_BASE_URL; ANTHROPIC_BASE_URL with --provider anthropic)
  --provider NAME       openai (any OpenAI-compatible server, default) or anthropic
  --cwd DIR             workspace (default: the current directory)
  --mode MODE           permissions: ask (default), auto_edit, approve_all
  --yes, -y             approve every action undo can repair (same as --mode approve_all)
  --sandbox MODE        commands run confined: workspace-write (default), read-only, off (unconfined)
  --max-turns N         stop after N model turns (default 50)
  --json                print the event stream as JSON lines on stdout (nex run; a JSON report for nex doctor)
  --data-dir DIR        where sessions are kept (default: $XDG_DATA_HOME/nex; "workspace" for ./.nex)
  --config FILE         config file (default: $XDG_CONFIG_HOME/nex/config.json)
  --version, --help

Keys come from OPENAI_API_KEY or ANTHROPIC_API_KEY and are never written anywhere.
Exit status: 0 done, 1 model or endpoint failure, 2 bad command line, 3 refused configuration,
4 nothing changed (every change the model tried was refused, e.g. needed approval), 130 Ctrl-C (SIGINT),
143 SIGTERM, 129 SIGHUP (a signal stops the running commands and saves the session).`;

/** Parses argv (without the node and script paths). */
export function parseCommand(argv: string[]): Command {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}. Run \`nex --help\` for the options.`);
  }
  const { values, positionals } = parsed;
  if (values.help) return { type: "help" };
  const options = commonOptions(values);
  const [verb, ...rest] = positionals;
  const session = values.last ? "last" : (values.session ?? null);
  switch (verb) {
    case undefined:
    case "chat":
      return { type: "chat", options, resume: session };
    case "run": {
      const task = rest.join(" ").trim();
      if (!task)
        throw new UsageError('nex run needs a task, for example: nex run "add a --verbose flag"');
      return { type: "run", options, task, resume: session };
    }
    case "resume": {
      // `nex resume ID [task]`, or with --last / --session ID every word is the task.
      const named = values.last || values.session !== undefined;
      const [id, ...taskWords] = named ? [undefined, ...rest] : rest;
      // No id at all: the chat opens the session picker ("pick"; without a terminal, the last session).
      const target = values.last ? "last" : (values.session ?? id ?? "pick");
      const task = taskWords.join(" ").trim();
      return task
        ? { type: "run", options, task, resume: target }
        : { type: "chat", options, resume: target };
    }
    case "sessions":
      return { type: "sessions", options };
    case "compact":
      return {
        type: "compact",
        options,
        session: values.last ? "last" : (rest[0] ?? session ?? "last"),
      };
    case "undo": {
      const turns = rest[0] === undefined ? 1 : Number(rest[0]);
      if (!Number.isInteger(turns) || turns < 1) {
        throw new UsageError(
          `nex undo takes a number of prompts to undo (1 or more), not "${rest[0]}". See what each step restores with \`nex undo --list\`.`,
        );
      }
      return {
        type: "undo",
        options,
        session: session ?? "last",
        turns,
        list: values.list === true,
        includeUnsure: values["include-unsure"] === true,
      };
    }
    case "demo":
      return { type: "demo", options, scenario: rest[0] ?? null };
    case "doctor":
      if (rest.length > 0)
        throw new UsageError(
          `nex doctor takes no arguments, not "${rest.join(" ")}"; choose the endpoint with --base-url, --provider and --model.`,
        );
      return { type: "doctor", options };
    default:
      throw new UsageError(
        `Unknown command "${verb}". To give nex a task, use: nex run "${[verb, ...rest].join(" ")}"`,
      );
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      model: { type: "string", short: "m" },
      "base-url": { type: "string" },
      provider: { type: "string" },
      cwd: { type: "string", short: "C" },
      mode: { type: "string" },
      sandbox: { type: "string" },
      yes: { type: "boolean", short: "y" },
      "max-turns": { type: "string" },
      json: { type: "boolean" },
      "data-dir": { type: "string" },
      config: { type: "string" },
      session: { type: "string" },
      last: { type: "boolean" },
      list: { type: "boolean" },
      "include-unsure": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
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
  const yes = values.yes ?? false;
  return {
    model: values.model,
    baseUrl: values["base-url"],
    provider: values.provider,
    cwd: values.cwd,
    permissionMode: yes ? "approve_all" : values.mode,
    yes,
    maxTurns,
    json: values.json ?? false,
    dataDir: values["data-dir"],
    config: values.config,
    sandbox: values.sandbox,
  };
}

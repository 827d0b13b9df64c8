import { CLAUDE_FLAGS, claudeFlagOptions } from "./claude-flags.ts";

/** Where the task of `nex run` comes from. */
export type TaskSource = "args" | "file" | "stdin" | "stream";

/** How `nex run` talks to whoever started it: formats, limits, and what the orchestrator set. */
export interface RunIo {
  output: "text" | "json-events" | "stream-json" | "json";
  input: "text" | "stream-json";
  partial: boolean;
  /** The orchestrator answers approvals over stdin (`--permission-prompt-tool stdio`). */
  permissionPrompts: boolean;
  taskFrom: TaskSource;
  promptFile?: string;
  systemPrompt?: string;
  systemPromptFile?: string;
  appendSystemPrompt?: string;
  tools?: string[];
  disallowedTools?: string[];
  maxTimeMs?: number;
  /** What set `maxTimeMs` when not `--max-time` (workgraph's task budget), for the messages. */
  maxTimeLabel?: string;
  sessionName?: string;
  inbox?: string;
  /** `--role NAME`: roles/NAME.md joins the system prompt. */
  role?: string;
  outputLastMessage?: string;
  outputSchema?: string;
  /** `--json-schema` (inline, as the Claude Agent SDK passes it). */
  inlineSchema?: string;
  /** Lines for stderr: flags accepted with no effect the user should know about. */
  notes: string[];
}

/** Options `nex run` accepts beyond the common ones: nex's own and Claude Code's. */
export function runFlagOptions() {
  return {
    ...claudeFlagOptions(),
    "prompt-file": { type: "string" },
    "system-prompt-file": { type: "string" },
    "disallowed-tools": { type: "string" },
    "max-time": { type: "string" },
    inbox: { type: "string" },
    role: { type: "string" },
    "output-last-message": { type: "string" },
    "output-schema": { type: "string" },
    p: { type: "boolean", short: "p" },
  } as const;
}

type Values = Record<string, string | string[] | boolean | undefined>;

const OUTPUTS = new Set(["text", "json-events", "stream-json", "json"]);

/**
 * Reads the run flags; throws a message (the caller makes it a usage error) for a flag nex refuses or
 * a value it cannot use. `task` is what the positionals said.
 */
export function readRunFlags(values: Values, task: string): RunIo {
  const notes: string[] = [];
  for (const [name, flag] of Object.entries(CLAUDE_FLAGS)) {
    if (values[name] === undefined) continue;
    if (flag.effect === "refuse") throw new Error(`--${name} is not supported: ${flag.why}.`);
    if (flag.effect === "ignore" && flag.tell) notes.push(`--${name} has no effect: ${flag.why}.`);
  }
  const str = (name: string) =>
    typeof values[name] === "string" ? (values[name] as string) : undefined;
  const output = str("output-format") ?? (values.json ? "json-events" : "text");
  if (!OUTPUTS.has(output))
    throw new Error(
      `--output-format takes text, json, stream-json or json-events, not "${output}".`,
    );
  const input = str("input-format") ?? "text";
  if (input !== "text" && input !== "stream-json")
    throw new Error(`--input-format takes text or stream-json, not "${input}".`);
  if (input === "stream-json" && output !== "stream-json")
    throw new Error(
      "--input-format stream-json needs --output-format stream-json (answers go out on the same stream).",
    );
  const promptTool = str("permission-prompt-tool");
  if (promptTool !== undefined && promptTool !== "stdio")
    throw new Error(
      `--permission-prompt-tool takes only "stdio" (approvals asked over the stream); nex cannot call the MCP tool "${promptTool}".`,
    );
  if (promptTool === "stdio" && input !== "stream-json")
    throw new Error(
      "--permission-prompt-tool stdio needs --input-format stream-json: the answers come back on stdin.",
    );
  const io: RunIo = {
    output: output as RunIo["output"],
    input,
    partial: values["include-partial-messages"] === true,
    permissionPrompts: promptTool === "stdio",
    taskFrom: "args",
    notes,
  };
  if (io.partial && output !== "stream-json")
    throw new Error("--include-partial-messages needs --output-format stream-json.");
  const promptFile = str("prompt-file");
  const sources = [
    task !== "" && task !== "-",
    task === "-",
    promptFile !== undefined,
    input === "stream-json",
  ];
  if (sources.filter(Boolean).length > 1)
    throw new Error(
      'give the task one way: as words, as "-" (read from stdin), with --prompt-file FILE, or as stream-json lines on stdin.',
    );
  if (task === "-") io.taskFrom = "stdin";
  else if (promptFile !== undefined) {
    io.taskFrom = "file";
    io.promptFile = promptFile;
  } else if (input === "stream-json") io.taskFrom = "stream";
  else if (task === "")
    throw new Error('nex run needs a task, for example: nex run "add a --verbose flag"');
  if (str("system-prompt") !== undefined && str("system-prompt-file") !== undefined)
    throw new Error("give --system-prompt or --system-prompt-file, not both.");
  assign(io, "systemPrompt", str("system-prompt"));
  assign(io, "systemPromptFile", str("system-prompt-file"));
  assign(io, "appendSystemPrompt", str("append-system-prompt"));
  const tools = str("tools");
  if (tools !== undefined && tools !== "default") io.tools = list(tools);
  const disallowed = [str("disallowed-tools"), str("disallowedTools")].filter(
    (v) => v !== undefined,
  );
  if (disallowed.length > 0) io.disallowedTools = disallowed.flatMap((v) => list(v as string));
  const maxTime = str("max-time");
  if (maxTime !== undefined) io.maxTimeMs = parseDuration(maxTime);
  const name = str("session-id");
  if (name !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(name))
      throw new Error(
        `--session-id takes a name of letters, digits, ".", "_" and "-" (at most 128), not "${name}".`,
      );
    io.sessionName = name;
  }
  assign(io, "inbox", str("inbox"));
  assign(io, "role", str("role"));
  assign(io, "outputLastMessage", str("output-last-message"));
  assign(io, "outputSchema", str("output-schema"));
  assign(io, "inlineSchema", str("json-schema"));
  if (io.outputSchema !== undefined && io.inlineSchema !== undefined)
    throw new Error("give --output-schema FILE or --json-schema JSON, not both.");
  return io;
}

function assign<K extends keyof RunIo>(io: RunIo, key: K, value: RunIo[K] | undefined): void {
  if (value !== undefined) io[key] = value;
}

function list(value: string): string[] {
  return value
    .split(/[,\s]+/)
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

/** `90`, `90s`, `15m`, `2h` → milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  const ms = match ? Number(match[1]) * unit[(match[2] ?? "s") as keyof typeof unit] : Number.NaN;
  if (!Number.isFinite(ms) || ms < 1000)
    throw new Error(
      `--max-time takes a duration of 1s or more such as 90s, 15m or 2h, not "${text}".`,
    );
  return ms;
}

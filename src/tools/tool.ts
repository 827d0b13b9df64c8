import { type GenericSchema, type InferOutput, safeParse } from "valibot";
import type { JsonSchema, ToolErrorCode, ToolOutcome } from "../protocol/index.ts";
import { ToolFailure } from "./tool-failure.ts";

export { ToolFailure } from "./tool-failure.ts";

import type {
  AfterRename,
  LeftoverSweeper,
  ReadLedger,
  ResolvedPath,
  Workspace,
} from "./files/index.ts";
import { publishedSchema } from "./json-schema.ts";
import type { ResultStore } from "./results/index.ts";
import type { CommandSandbox } from "./sandbox/index.ts";
import type { FileSearch } from "./search/index.ts";
import type { JobTable } from "./shell/index.ts";
import type { CheckpointRecorder } from "./undo/index.ts";

/** What kind of change a tool makes: file edits, arbitrary commands, or nothing. */
export type Mutation = "edit" | "exec" | false;

/** Limits and switches shared by the tools of one host. */
export interface ToolLimits {
  /** Most bytes a result may put into the conversation (it follows the window); more is stored. */
  readonly outputCap: number;
  bashTimeoutMs: number;
  maxBashTimeoutMs: number;
  /** Wait between SIGTERM and SIGKILL of a process group. */
  killGraceMs: number;
  /** False forces the JavaScript search fallback even when `rg` is on PATH. */
  useRipgrep: boolean;
  /** Environment for `bash` commands and the tools' own child processes. */
  env: Record<string, string | undefined>;
  /** The steps after a file tool's rename (fsync of the directory, read-back); a test passes failing ones. */
  afterRename?: Partial<AfterRename>;
  /** Whether the session's model takes images now (it can change with /model); absent: it does not. */
  acceptsImages?: () => boolean;
}

/** Everything a tool may use; tools keep no state of their own. */
export interface ToolContext {
  workspace: Workspace;
  ledger: ReadLedger;
  signal: AbortSignal;
  /** The loop's turn number of this call. */
  turn: number;
  /** The call's id, when the host runs a model's call (a tool that starts a child agent tags its events with it). */
  callId?: string;
  checkpoints: CheckpointRecorder;
  /** File listing and text search (ripgrep or the JavaScript fallback). */
  search: FileSearch;
  /** Removes temporary files that interrupted writes of earlier processes left behind. */
  leftovers: LeftoverSweeper;
  limits: ToolLimits;
  /** Where results too large for the context are kept whole, for the model to page through. */
  results: ResultStore;
  /** Confines commands (bubblewrap, Seatbelt), or says why it cannot. */
  sandbox: CommandSandbox;
  /** The session's background jobs. */
  jobs: JobTable;
  /** A person approved this very call after seeing its caution (a private address, say). */
  approved?: boolean;
  /** Reports a step of a long call (research), shown as it happens. */
  progress?(message: string): void;
  /** Reports a running command's output so far (its last lines), for a UI to show live. */
  output?(tail: string, lines: number, bytes: number): void;
  /** The editor nex runs in (ACP), when it shows files with changes not saved yet. */
  editor?: EditorBuffers;
  /** Replaces nex's secrets in text a tool sends on unscrubbed (a file's chunk in a child's request). */
  redact?: (text: string) => string;
}

/** An editor's open files: what it shows may differ from the disk, and that difference is the user's work. */
export interface EditorBuffers {
  /** The editor's text of `abs` when it differs from `disk` (unsaved changes), else null (also when it cannot say). */
  unsaved(abs: string, disk: Buffer): Promise<string | null>;
}

/**
 * The tool's own words for a refused argument, where the generic ones would not tell the model enough
 * (a missing `content` is usually output pressure). The host knows no tool by name.
 */
export interface ArgumentWords {
  /** When the key is absent. */
  missing?: string;
  /** When the string is empty or blank. */
  empty?: string;
}

/** What the schema's own check found: nothing, or its issues in its own words. */
export type SchemaCheck = { ok: true } | { ok: false; issues: string[] };

/** A tool declared once, as data: its schema gives the type, the published JSON Schema and validation. */
export interface ToolDefinition<S extends GenericSchema> {
  name: string;
  description: string;
  parameters: S;
  mutates: Mutation;
  words?: Record<string, ArgumentWords>;
  /** One line for a permission prompt, e.g. `write_file src/a.ts (1,234 bytes, overwrites 900 bytes)`. */
  summarize?(args: InferOutput<S>, ctx: ToolContext): Promise<string>;
  /** The path a file tool acts on, so permissions can tell inside from outside the workspace. */
  target?(args: InferOutput<S>): string;
  /** The shell command a tool runs, so the command rules, the hazard guard and the sandbox see it. */
  command?(args: InferOutput<S>): string;
  /** What a call reaches outside the workspace (a URL, a search query): such calls ask unless approved or on --yes. */
  reach?(args: InferOutput<S>): string;
  /** Why this call needs a person's yes even on --yes (a private address), or null. */
  caution?(args: InferOutput<S>): Promise<string | null>;
  /** Rarely used: on small windows its schema is sent only after the model asks for it. */
  deferred?: boolean;
  /** For a deferred tool: its few words in load_tools' listing (else its description's start). */
  brief?: string;
  execute(args: InferOutput<S>, ctx: ToolContext): Promise<ToolOutcome>;
}

/**
 * One contract for every tool, built-in or brought by a server: name, description, JSON Schema, the
 * check of arguments against it (no coercion), mutation kind, permission summary and execution. The
 * host validates, asks, checkpoints and fits results the same way for all of them.
 */
export interface Tool {
  name: string;
  description: string;
  /** The JSON Schema the model is shown, and that arguments are checked against. */
  jsonSchema: JsonSchema;
  /** The schema library's verdict on arguments (valibot for built-in tools, a JSON Schema validator else). */
  check(args: Record<string, unknown>): SchemaCheck;
  /** The tool's own words for some refusals. */
  words: Record<string, ArgumentWords>;
  mutates: Mutation;
  /**
   * A changing tool whose calls may still run beside one another (an MCP tool its server marks
   * read-only): they share one checkpoint window and ask as any call of it does. Never a permission.
   */
  parallel?: boolean;
  /** Rarely used: on small windows its schema is sent only after the model asks for it (`load_tools`). */
  deferred?: boolean;
  /** For a deferred tool: its few words in load_tools' listing (else its description's start). */
  brief?: string;
  summarize(args: Record<string, unknown>, ctx: ToolContext): Promise<string>;
  target(args: Record<string, unknown>): string | null;
  /** The shell command it runs, or null for a tool that runs none. */
  command(args: Record<string, unknown>): string | null;
  /** What the call reaches outside the workspace (the network); absent for tools that stay inside. */
  reach?(args: Record<string, unknown>): string;
  /** Why this call needs a person's yes even on --yes, or null. */
  caution?(args: Record<string, unknown>): Promise<string | null>;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** Erases the argument type of a definition; only the dispatcher calls it, after validation. */
export function defineTool<S extends GenericSchema>(def: ToolDefinition<S>): Tool {
  type Args = InferOutput<S>;
  return {
    name: def.name,
    description: def.description,
    jsonSchema: publishedSchema(def.parameters),
    ...(def.deferred ? { deferred: true } : {}),
    ...(def.brief ? { brief: def.brief } : {}),
    check(args) {
      const result = safeParse(def.parameters, args);
      if (result.success) return { ok: true };
      return {
        ok: false,
        issues: result.issues.map((issue) => {
          const key = (issue.path ?? []).map((item) => String(item.key)).join(".");
          return `\`${key || "arguments"}\` ${issue.message}`;
        }),
      };
    },
    words: def.words ?? {},
    mutates: def.mutates,
    summarize: async (args, ctx) => (def.summarize ? def.summarize(args as Args, ctx) : def.name),
    target: (args) => (def.target ? def.target(args as Args) : null),
    command: (args) => (def.command ? def.command(args as Args) : null),
    ...(def.reach
      ? { reach: (args: Record<string, unknown>) => def.reach?.(args as Args) ?? "" }
      : {}),
    ...(def.caution
      ? { caution: async (args: Record<string, unknown>) => def.caution?.(args as Args) ?? null }
      : {}),
    execute: (args, ctx) => def.execute(args as Args, ctx),
  };
}

/** At least one non-space character: a path or command of only spaces is refused like an empty one. */
export const NON_BLANK = /\S/;

/**
 * Resolves a path that must already exist (a directory to search or list); otherwise the call fails
 * with `not_found` and `hint` says how to find the right one.
 */
export async function existingPath(
  ctx: ToolContext,
  path: string,
  hint: string,
): Promise<ResolvedPath> {
  const resolved = await ctx.workspace.resolveForRead(path);
  if (!resolved.exists)
    throw new ToolFailure("not_found", `${resolved.display} does not exist. ${hint}`);
  return resolved;
}

/** An error outcome with a code. */
export function failure(code: ToolErrorCode, content: string): ToolOutcome {
  return { isError: true, code, content };
}

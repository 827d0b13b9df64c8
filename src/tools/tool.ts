import type { GenericSchema, InferOutput } from "valibot";
import type { JsonSchema, ToolErrorCode, ToolOutcome } from "../protocol/index.ts";
import type { AfterRename } from "./atomic-write.ts";
import type { CheckpointRecorder } from "./checkpoints.ts";
import type { FileSearch } from "./file-search.ts";
import { publishedSchema } from "./json-schema.ts";
import type { ReadLedger } from "./ledger.ts";
import type { LeftoverSweeper } from "./leftovers.ts";
import type { CommandSandbox } from "./sandbox/index.ts";
import type { ResolvedPath, Workspace } from "./workspace.ts";

/** What kind of change a tool makes: file edits, arbitrary commands, or nothing. */
export type Mutation = "edit" | "exec" | false;

/** Limits and switches shared by the tools of one host. */
export interface ToolLimits {
  /** Most bytes of output a result may carry; longer output keeps its head and tail. */
  outputCap: number;
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
}

/** Everything a tool may use; tools keep no state of their own. */
export interface ToolContext {
  workspace: Workspace;
  ledger: ReadLedger;
  signal: AbortSignal;
  /** The loop's turn number of this call. */
  turn: number;
  checkpoints: CheckpointRecorder;
  /** File listing and text search (ripgrep or the JavaScript fallback). */
  search: FileSearch;
  /** Removes temporary files that interrupted writes of earlier processes left behind. */
  leftovers: LeftoverSweeper;
  limits: ToolLimits;
  /** Confines commands (bubblewrap, Seatbelt), or says why it cannot. */
  sandbox: CommandSandbox;
}

/** A tool declared once, as data: its schema gives the type, the published JSON Schema and validation. */
export interface ToolDefinition<S extends GenericSchema> {
  name: string;
  description: string;
  parameters: S;
  mutates: Mutation;
  /** One line for a permission prompt, e.g. `write_file src/a.ts (1,234 bytes, overwrites 900 bytes)`. */
  summarize?(args: InferOutput<S>, ctx: ToolContext): Promise<string>;
  /** The path a file tool acts on, so permissions can tell inside from outside the workspace. */
  target?(args: InferOutput<S>): string;
  execute(args: InferOutput<S>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** A tool with its argument type erased, as the host keeps it; arguments are validated before use. */
export interface Tool {
  name: string;
  description: string;
  /** The declared schema: the check arguments must pass. */
  parameters: GenericSchema;
  /** The same schema as the JSON Schema the model is shown. */
  jsonSchema: JsonSchema;
  mutates: Mutation;
  summarize(args: Record<string, unknown>, ctx: ToolContext): Promise<string>;
  target(args: Record<string, unknown>): string | null;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** Erases the argument type of a definition; only the dispatcher calls it, after validation. */
export function defineTool<S extends GenericSchema>(def: ToolDefinition<S>): Tool {
  type Args = InferOutput<S>;
  return {
    name: def.name,
    description: def.description,
    parameters: def.parameters,
    jsonSchema: publishedSchema(def.parameters),
    mutates: def.mutates,
    summarize: async (args, ctx) => (def.summarize ? def.summarize(args as Args, ctx) : def.name),
    target: (args) => (def.target ? def.target(args as Args) : null),
    execute: (args, ctx) => def.execute(args as Args, ctx),
  };
}

/** At least one non-space character: a path or command of only spaces is refused like an empty one. */
export const NON_BLANK = /\S/;

/** A failure the model must act on; the dispatcher turns it into an error result with its code. */
export class ToolFailure extends Error {
  readonly code: ToolErrorCode;
  constructor(code: ToolErrorCode, message: string) {
    super(message);
    this.name = "ToolFailure";
    this.code = code;
  }
}

/**
 * Resolves a path that must already exist (a directory to search or list); otherwise the call fails
 * with `not_found` and `hint` says how to find the right one.
 */
export async function existingPath(
  ctx: ToolContext,
  path: string,
  hint: string,
): Promise<ResolvedPath> {
  const resolved = await ctx.workspace.resolve(path);
  if (!resolved.exists)
    throw new ToolFailure("not_found", `${resolved.display} does not exist. ${hint}`);
  return resolved;
}

/** An error outcome with a code. */
export function failure(code: ToolErrorCode, content: string): ToolOutcome {
  return { isError: true, code, content };
}

import type { ReadRecord, ToolOutcome } from "../../protocol/index.ts";
import type { ReadLedger } from "../files/index.ts";
import { fitResult } from "../results/index.ts";
import type { Tool, ToolContext } from "../tool.ts";
import { ToolFailure } from "../tool-failure.ts";

/** What the messages read of a tool's schema: a flat object of primitive properties. */
interface FlatSchema {
  properties?: Record<string, PropertySchema>;
  required?: string[];
  additionalProperties?: unknown;
}

interface PropertySchema {
  type?: unknown;
  minLength?: number;
  /** Only NON_BLANK is declared: a string not matching it is blank. */
  pattern?: string;
  minimum?: number;
  maximum?: number;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `a string`;
  return `${typeof value} ${JSON.stringify(value)}`;
}

function missingMessage(tool: Tool, key: string): string {
  return (
    tool.words[key]?.missing ??
    `Missing required argument \`${key}\`. Re-emit the call with \`${key}\` set.`
  );
}

/** Whether `value` has the JSON Schema `type`; null for a type these messages do not know. */
function hasType(type: unknown, value: unknown): boolean | null {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "boolean":
      return typeof value === "boolean";
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return null;
  }
}

/**
 * Validates arguments against a tool's schema with no coercion; returns plain-words problems, or none.
 * The schema library's check decides; the messages are worked out here from the flat top-level
 * schema, in the words the model needs (missing, null, wrong type, empty, out of range, unknown).
 */
export function validateArguments(tool: Tool, args: unknown): string[] {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return [
      `The arguments must be a JSON object, got ${describeValue(args)}. Re-emit the call with an object of arguments.`,
    ];
  }
  const result = tool.check(args as Record<string, unknown>);
  if (result.ok) return [];
  const problems = describeProblems(
    tool,
    tool.jsonSchema as FlatSchema,
    args as Record<string, unknown>,
  );
  // Whatever the flat reading cannot explain is said in the library's words.
  if (problems.length === 0) {
    for (const issue of result.issues)
      problems.push(`${issue}. Re-emit the call with a valid value.`);
  }
  return problems.length > 0
    ? [...new Set(problems)]
    : ["The arguments do not match the tool's schema. Re-emit the call."];
}

function describeProblems(
  tool: Tool,
  schema: FlatSchema,
  record: Record<string, unknown>,
): string[] {
  const properties = schema.properties ?? {};
  const known = Object.keys(properties);
  const problems: string[] = [];
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(record, key)) problems.push(missingMessage(tool, key));
  }
  if (schema.additionalProperties === false) {
    const extra = Object.keys(record).filter((key) => !Object.hasOwn(properties, key));
    if (extra.length > 0) {
      problems.push(
        `Unknown argument${extra.length === 1 ? "" : "s"} ${extra.map((k) => `\`${k}\``).join(", ")} for ${tool.name}; ` +
          `its arguments are: ${known.join(", ")}. Re-emit the call without ${extra.length === 1 ? "it" : "them"}.`,
      );
    }
  }
  for (const [key, property] of Object.entries(properties)) {
    if (!Object.hasOwn(record, key)) continue;
    const value = record[key];
    if (hasType(property.type, value) === false) {
      const expected = String(property.type);
      problems.push(
        value === null
          ? `\`${key}\` is null; it must be ${article(expected)} ${expected}. Re-emit the call with a real value.`
          : `\`${key}\` must be ${article(expected)} ${expected}, got ${describeValue(value)}. Re-emit the call with ${article(expected)} ${expected}.`,
      );
      continue;
    }
    if (typeof value === "string" && property.minLength !== undefined) {
      if (value.length < property.minLength) problems.push(emptyMessage(tool, key, "empty"));
      else if (property.pattern !== undefined && !new RegExp(property.pattern, "u").test(value))
        problems.push(emptyMessage(tool, key, "blank (only whitespace)"));
    }
    if (typeof value === "number") {
      const range = (bound: string) =>
        `\`${key}\` must be ${bound} (got ${JSON.stringify(value)}). Re-emit the call with a value in range.`;
      if (property.minimum !== undefined && value < property.minimum)
        problems.push(range(`>= ${property.minimum}`));
      if (property.maximum !== undefined && value > property.maximum)
        problems.push(range(`<= ${property.maximum}`));
    }
  }
  return problems;
}

function article(word: string): string {
  return /^[aeiou]/.test(word) ? "an" : "a";
}

function emptyMessage(tool: Tool, key: string, what: string): string {
  const own = tool.words[key]?.empty;
  return own
    ? own.replace("{what}", what)
    : `\`${key}\` must not be ${what}. Re-emit the call with a value.`;
}

/** Collects the ledger records one call made, for its outcome (and so the journal). */
function recordingLedger(ledger: ReadLedger, made: ReadRecord[]): ReadLedger {
  return {
    get: (path) => ledger.get(path),
    all: () => ledger.all(),
    forget: () => ledger.forget(),
    recordRead: (base, range) => {
      const record = ledger.recordRead(base, range);
      made.push(record);
      return record;
    },
    recordWrite: (record) => {
      const saved = ledger.recordWrite(record);
      made.push(saved);
      return saved;
    },
  };
}

/** What the dispatcher needs besides the call. */
export interface DispatchOptions {
  tools: Map<string, Tool>;
  context: Omit<ToolContext, "ledger" | "signal" | "turn"> & { ledger: ReadLedger };
  signal: AbortSignal;
  turn: number;
  callId?: string;
}

/**
 * Validates, runs and shapes one call. Never throws: a refused call, a coded failure and an internal
 * fault all come back as error outcomes. Output is capped here, for every tool.
 */
export async function dispatch(
  name: string,
  args: unknown,
  options: DispatchOptions,
): Promise<ToolOutcome> {
  const tool = options.tools.get(name);
  if (!tool) {
    return {
      isError: true,
      code: "invalid_arguments",
      content: `Unknown tool \`${name}\`. The tools are: ${[...options.tools.keys()].join(", ")}. Call one of them.`,
      unknownTool: true,
    };
  }
  const problems = validateArguments(tool, args);
  if (problems.length > 0) {
    return {
      isError: true,
      code: "invalid_arguments",
      content: `${tool.name} was not run. ${problems.join(" ")}`,
    };
  }
  if (options.signal.aborted) {
    return {
      isError: true,
      code: "aborted",
      content: `${tool.name} was not run: the turn was interrupted.`,
    };
  }
  const made: ReadRecord[] = [];
  const ctx: ToolContext = {
    ...options.context,
    ledger: recordingLedger(options.context.ledger, made),
    signal: options.signal,
    turn: options.turn,
    ...(options.callId !== undefined ? { callId: options.callId } : {}),
  };
  let outcome: ToolOutcome;
  try {
    outcome = await tool.execute(args as Record<string, unknown>, ctx);
  } catch (error) {
    outcome = faultOutcome(tool.name, error, options.signal);
  }
  const capped = fitResult(
    outcome.content,
    options.context.limits.outputCap,
    options.context.results,
    tool.name,
  );
  const ledger = made.map((record) =>
    capped.cut > 0 && record.complete ? { ...record, complete: false } : record,
  );
  if (capped.cut > 0) for (const record of ledger) options.context.ledger.recordWrite(record);
  return { ...outcome, content: capped.text, ...(ledger.length > 0 ? { ledger } : {}) };
}

function faultOutcome(tool: string, error: unknown, signal: AbortSignal): ToolOutcome {
  if (error instanceof ToolFailure)
    return { isError: true, code: error.code, content: error.message };
  if (signal.aborted || (error as { name?: string }).name === "AbortError") {
    return {
      isError: true,
      code: "aborted",
      content: `${tool} was interrupted before it finished; check the state before retrying.`,
    };
  }
  const code = (error as { code?: string }).code;
  if (code === "EACCES" || code === "EPERM") {
    return {
      isError: true,
      code: "failed",
      content: `${tool} failed: permission denied (${(error as Error).message}). Nothing was changed by this call.`,
    };
  }
  if (code === "ENOSPC") {
    return {
      isError: true,
      code: "failed",
      content: `${tool} failed: the disk is full. Nothing was changed by this call; tell the user.`,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return {
    isError: true,
    code: "internal",
    content: `${tool} failed with an internal error of nex (${message.slice(0, 300)}). This is not a problem with your arguments; tell the user if it repeats.`,
  };
}

import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { TerminalEvent } from "../protocol/index.ts";
import { ConfigError, compileJsonSchema, type Validate } from "../runtime/config/index.ts";
import type { AgentSession } from "../runtime/session/index.ts";
import { EXIT } from "./exit-code.ts";

/** A JSON Schema the final answer must meet (`--output-schema FILE`), compiled before anything is sent. */
export interface AnswerSchema {
  /** Added to the task: what the final answer must be. */
  instruction: string;
  check(answer: string): { ok: true; value: unknown } | { ok: false; errors: string };
  text: string;
}

/** How a run with a schema ended: the answer's value, or why it never met the schema. */
export interface SchemaEnd {
  terminal?: TerminalEvent;
  structuredOutput?: unknown;
  failure?: { subtype: string; message: string; exitCode: number; outcome: string };
}

/** Reads and compiles the schema; a file that is unreadable, not JSON or not a valid schema is a ConfigError. */
export async function loadAnswerSchema(path: string): Promise<AnswerSchema> {
  let text: string;
  try {
    text = readFileSync(resolve(path), "utf8");
  } catch (error) {
    throw new ConfigError(
      `--output-schema ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); give a JSON Schema file.`,
    );
  }
  return compileAnswerSchema(text, `--output-schema ${path}`);
}

/** Compiles a schema given as text (`--json-schema`, as the Claude Agent SDK passes it). */
export async function compileAnswerSchema(text: string, label: string): Promise<AnswerSchema> {
  const path = label;
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${label} is not JSON: ${(error as Error).message}.`);
  }
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new ConfigError(`${path} is not a JSON Schema (an object).`);
  let validate: Validate;
  try {
    validate = await compileJsonSchema(schema);
  } catch (error) {
    throw new ConfigError(
      `${path} does not compile as a JSON Schema: ${(error as Error).message}. Fix the schema; nothing was sent.`,
    );
  }
  const compact = JSON.stringify(schema);
  return {
    text: compact,
    instruction: `When you have finished, your final answer must be one JSON document valid against this JSON Schema, and nothing else (no prose, no code fence):\n${compact}`,
    check(answer) {
      let value: unknown;
      try {
        value = JSON.parse(unfenced(answer));
      } catch (error) {
        return { ok: false, errors: `it is not JSON (${(error as Error).message})` };
      }
      if (validate(value)) return { ok: true, value };
      const errors = (validate.errors ?? [])
        .slice(0, 8)
        .map((e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}`)
        .join("; ");
      return { ok: false, errors };
    },
  };
}

/**
 * Checks a finished run's answer; when it does not meet the schema, asks the model once more with the
 * errors, and checks again. A second miss is a failure with its own exit code.
 */
export async function enforceAnswerSchema(
  schema: AnswerSchema,
  session: AgentSession,
  terminal: TerminalEvent,
): Promise<SchemaEnd> {
  if (terminal.type !== "done") return {};
  const first = schema.check(terminal.finalText);
  if (first.ok) return { structuredOutput: first.value };
  const retry = await session.submit(
    `Your final answer does not meet the required JSON Schema: ${first.errors}. Reply with only the corrected JSON document, valid against:\n${schema.text}`,
  );
  if (retry.type !== "done") return { terminal: retry };
  const second = schema.check(retry.finalText);
  if (second.ok) return { terminal: retry, structuredOutput: second.value };
  return {
    terminal: retry,
    failure: {
      subtype: "error_max_structured_output_retries",
      message: `The final answer does not meet --output-schema after one corrective retry: ${second.errors}.`,
      exitCode: EXIT.schema,
      outcome: "schema_failed",
    },
  };
}

/** A model that wraps its JSON in one code fence still gave the JSON: the fence is taken off. */
function unfenced(answer: string): string {
  const match = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(answer);
  return match?.[1] ?? answer;
}

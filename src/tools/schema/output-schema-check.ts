// An MCP tool's structured result against the output schema it declares (compiled by its dialect).
import { compileJsonSchema, type Validate } from "./json-schema-validator.ts";

// Schemas that did not compile, and why: asked again, the answer is the same.
const failures = new WeakMap<object, string>();

/** What the check of structured content found. */
export type OutputCheck =
  | { type: "valid" }
  | { type: "invalid"; problems: string }
  /** The schema itself does not compile: nothing is claimed about the content. */
  | { type: "unchecked"; why: string };

/** Checks structured content against a tool's `outputSchema`. */
export async function checkOutput(schema: object, content: unknown): Promise<OutputCheck> {
  const failed = failures.get(schema);
  if (failed !== undefined) return { type: "unchecked", why: failed };
  let validate: Validate;
  try {
    validate = await compileJsonSchema(schema);
  } catch (error) {
    const why = `its output schema does not compile (${(error as Error).message})`;
    failures.set(schema, why);
    return { type: "unchecked", why };
  }
  if (validate(content)) return { type: "valid" };
  const problems = (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (error) =>
        `\`${error.instancePath.slice(1).replaceAll("/", ".") || "(top)"}\` ${error.message ?? "is invalid"}`,
    )
    .join("; ");
  return { type: "invalid", problems };
}

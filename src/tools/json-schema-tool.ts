import type { JsonSchema, ToolOutcome } from "../protocol/index.ts";
import type { Validate } from "./schema/index.ts";
import type { Mutation, SchemaCheck, Tool, ToolContext } from "./tool.ts";

/** A tool known only by a JSON Schema (an MCP server's, say): everything the host needs to run it. */
export interface JsonSchemaToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  mutates: Mutation;
  /** Its calls may run beside one another (see `Tool.parallel`). */
  parallel?: boolean;
  /** Rarely used: on small windows its schema is sent only once the model loads it. */
  deferred?: boolean;
  /** One line for a permission prompt; default: the name and the arguments as JSON. */
  summarize?(args: Record<string, unknown>): Promise<string>;
  execute(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
}

/** A JSON Schema that does not compile: the tool is not registered, and this says why. */
export class ToolSchemaError extends Error {
  override readonly name = "ToolSchemaError";
}

/**
 * Builds a tool from a JSON Schema, checked by a well-kept validator (Ajv) at the same boundary and
 * with the same refusal wording as the built-in tools. Throws ToolSchemaError for a schema that does
 * not compile or does not describe an object.
 */
export async function defineJsonSchemaTool(def: JsonSchemaToolDefinition): Promise<Tool> {
  if (def.inputSchema.type !== "object") {
    throw new ToolSchemaError(
      `The tool ${def.name} declares arguments of type ${JSON.stringify(def.inputSchema.type)}; tool arguments must be an object.`,
    );
  }
  let validate: Validate;
  try {
    validate = await (await import("./schema/index.ts")).compileJsonSchema(def.inputSchema);
  } catch (error) {
    throw new ToolSchemaError(
      `The tool ${def.name} has a schema that does not compile (${(error as Error).message}); it is left out.`,
    );
  }
  const check = (args: Record<string, unknown>): SchemaCheck => {
    if (validate(args)) return { ok: true };
    return {
      ok: false,
      issues: (validate.errors ?? []).map(
        (error) =>
          `\`${error.instancePath.slice(1).replaceAll("/", ".") || "arguments"}\` ${error.message ?? "is invalid"}`,
      ),
    };
  };
  return {
    name: def.name,
    description: def.description,
    jsonSchema: def.inputSchema,
    check,
    words: {},
    mutates: def.mutates,
    ...(def.parallel ? { parallel: true } : {}),
    ...(def.deferred ? { deferred: true } : {}),
    summarize: async (args) =>
      def.summarize ? def.summarize(args) : `${def.name} ${JSON.stringify(args).slice(0, 200)}`,
    target: () => null,
    command: () => null,
    execute: (args, ctx) => def.execute(args, ctx),
  };
}

import { toJsonSchema } from "@valibot/to-json-schema";
import type { GenericSchema } from "valibot";
import type { JsonSchema } from "../protocol/index.ts";

const LEADING_KEYS = ["type", "required", "properties"];

/**
 * The JSON Schema the model is shown for a tool's arguments, made from the one valibot declaration:
 * without the `$schema` marker or an empty `required`, and with its keys in the order JSON Schema is
 * usually written (`type`, `required`, `properties`, then the rest as declared), so the bytes the model
 * sees do not depend on how the converter happens to build its objects.
 */
export function publishedSchema(schema: GenericSchema): JsonSchema {
  const { $schema: _, ...converted } = toJsonSchema(schema) as JsonSchema;
  return ordered(converted);
}

function ordered(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const key of LEADING_KEYS) if (Object.hasOwn(schema, key)) out[key] = schema[key];
  for (const [key, value] of Object.entries(schema))
    if (!LEADING_KEYS.includes(key)) out[key] = value;
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  const properties = out.properties as Record<string, JsonSchema> | undefined;
  if (properties) {
    out.properties = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => [name, ordered(property)]),
    );
  }
  return out;
}

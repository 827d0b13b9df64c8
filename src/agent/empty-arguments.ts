// Small models fill every parameter a tool lists, sending "" or null for the optional ones they do not
// mean to use (Qwen2.5-Coder 1.5B sent grep `"glob": ""` in three bench/eval runs, and the refusal
// that "glob must not be empty" did not bring it to leave the key out). An optional argument that is
// empty where the tool would refuse emptiness means "not given": it is dropped before validation, the
// repeat guard and the permissions see the call, so they all judge the call the model meant. The
// same holds for a number or a truth value written as a string (`"offset": "1"`: Qwen2.5-Coder 0.5B,
// r14 csv-answer, refused twice and then looped): where the schema wants a number and no string,
// "1" can mean nothing but 1.
import type { JsonSchema } from "../protocol/index.ts";

interface PropertyShape {
  type?: unknown;
  minLength?: unknown;
}

/**
 * The arguments with each number or truth value the model wrote as a string (`"1"`, `"-2.5"`,
 * `"true"`) read as the value it spells, where the property's type is that and not a string; null
 * when there is none. Anything else (`"1e3"`, `"01"`, `" 1"`, `"ten"`) stays for validation to refuse.
 */
export function withValuesRead(
  schema: JsonSchema | undefined,
  args: Record<string, unknown>,
): Record<string, unknown> | null {
  const properties = schema?.properties as Record<string, PropertyShape> | undefined;
  if (!properties) return null;
  let read: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(args)) {
    const type = properties[key]?.type;
    if (typeof value !== "string" || type === undefined || allows(type, "string")) continue;
    const spelled = spelledValue(value, type);
    if (spelled === undefined) continue;
    read ??= { ...args };
    read[key] = spelled;
  }
  return read;
}

function spelledValue(text: string, type: unknown): number | boolean | undefined {
  if (allows(type, "integer") && /^-?(?:0|[1-9][0-9]{0,14})$/.test(text)) return Number(text);
  if (allows(type, "number") && /^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]{1,15})?$/.test(text))
    return Number(text);
  if (allows(type, "boolean") && (text === "true" || text === "false")) return text === "true";
  return undefined;
}

/**
 * The arguments without the optional ones sent as null or "" where the schema refuses that value, and
 * the names dropped; null when nothing is dropped. Required arguments are left alone: their refusal
 * says what is missing.
 */
export function withoutEmptyOptionals(
  schema: JsonSchema | undefined,
  args: Record<string, unknown>,
): { args: Record<string, unknown>; dropped: string[] } | null {
  const properties = schema?.properties as Record<string, PropertyShape> | undefined;
  if (!properties) return null;
  if (isEchoedSchema(properties, args)) return { args: {}, dropped: Object.keys(args) };
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  const dropped = Object.keys(args).filter((key) => {
    const property = properties[key];
    if (!property && SCHEMA_ECHO.has(key)) return true;
    if (!property || required.has(key)) return false;
    const value = args[key];
    if (value === null) return !allows(property.type, "null");
    return value === "" && typeof property.minLength === "number" && property.minLength > 0;
  });
  if (dropped.length === 0) return null;
  const kept = Object.fromEntries(Object.entries(args).filter(([key]) => !dropped.includes(key)));
  return { args: kept, dropped };
}

// Keywords of the tool's JSON Schema that a small model copies into its arguments
// (`"additionalProperties": false`: Qwen2.5-Coder 0.5B in every list_dir and glob call of dead-code
// and add-test-js, refused three times in a row). They never carry an argument's meaning.
const SCHEMA_ECHO = new Set(["additionalProperties", "$schema"]);

// What a JSON Schema of an object is made of: arguments that hold only these (and name no parameter)
// are the tool's schema copied whole instead of values.
const SCHEMA_KEYWORDS = new Set([
  ...SCHEMA_ECHO,
  "type",
  "properties",
  "required",
  "description",
  "title",
]);

/**
 * Arguments that are the tool's parameter schema rather than values (`{"type": "object", "required":
 * ["path"], "properties": {...}}`: Qwen2.5-Coder 0.5B's list_dir call in add-method-py): they give no
 * argument, so the call is the tool's call without any, and a required one's refusal names it.
 */
function isEchoedSchema(
  properties: Record<string, unknown>,
  args: Record<string, unknown>,
): boolean {
  const keys = Object.keys(args);
  const shaped =
    args.type === "object" || (typeof args.properties === "object" && args.properties !== null);
  return shaped && keys.every((key) => SCHEMA_KEYWORDS.has(key) && !Object.hasOwn(properties, key));
}

function allows(type: unknown, name: string): boolean {
  return type === undefined || type === name || (Array.isArray(type) && type.includes(name));
}

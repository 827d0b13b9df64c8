import { closestMatch } from "leven";
import type * as v from "valibot";

// The config file may hold keys of a newer or older nex, or a typo: such a key is said and left out,
// never a refusal to start. Everything else the schema refuses still refuses.

type AnySchema = v.GenericSchema & {
  entries?: Record<string, AnySchema>;
  wrapped?: AnySchema;
  value?: AnySchema;
  item?: AnySchema;
  options?: AnySchema[];
};

/** The keys an object schema at `path` knows, when the path leads to one. */
function knownKeys(schema: AnySchema | undefined, path: readonly unknown[]): string[] {
  if (!schema) return [];
  if (schema.wrapped) return knownKeys(schema.wrapped, path);
  if (schema.options) return schema.options.flatMap((option) => knownKeys(option, path));
  if (path.length === 0) return schema.entries ? Object.keys(schema.entries) : [];
  const [head, ...rest] = path;
  if (schema.entries) return knownKeys(schema.entries[String(head)], rest);
  return knownKeys(schema.value ?? schema.item, rest);
}

/**
 * `input` without the keys `schema`'s strict objects do not know, with one notice per key left out
 * (and the near known key, for a typo). `input` itself is not changed.
 */
export function dropUnknownKeys(
  schema: v.GenericSchema,
  input: unknown,
  issues: readonly v.BaseIssue<unknown>[],
  where: string,
): { value: unknown; notices: string[] } {
  const value = structuredClone(input);
  const notices: string[] = [];
  for (const issue of issues) {
    if (issue.type !== "strict_object" || !issue.path || issue.path.length === 0) continue;
    const keys = issue.path.map((item) => item.key);
    const parent = keys
      .slice(0, -1)
      .reduce<unknown>(
        (node, key) => (node as Record<string, unknown> | undefined)?.[String(key)],
        value,
      ) as Record<string, unknown> | undefined;
    const key = String(keys.at(-1));
    if (!parent || !Object.hasOwn(parent, key)) continue;
    delete parent[key];
    const near = closestMatch(key, knownKeys(schema as AnySchema, keys.slice(0, -1)), {
      maxDistance: 2,
    });
    const at = keys.map((item) => `/${String(item)}`).join("");
    notices.push(
      `${where}: unknown setting ${at} ignored${near ? ` (did you mean "${near}"?)` : ""}.`,
    );
  }
  return { value, notices };
}

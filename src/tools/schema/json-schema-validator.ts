// The one JSON Schema validator of nex (Ajv), for every schema that comes from outside: an MCP tool's
// input and output schemas, a skill's, and the answer schema of `nex run --output-schema`. A schema
// is compiled by the dialect its `$schema` declares (2020-12, 2019-09, draft-07 and older); with
// none, as draft-07. Arguments are checked, never changed: no coercion, no defaults, no removal.
import type { JsonSchema } from "../../protocol/index.ts";

/** A compiled schema: true when `data` is valid, else `errors` says where and why. */
export type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};

type Dialect = "2020-12" | "2019-09" | "draft-07";

interface Compiler {
  compile(schema: object): Validate;
}

const OPTIONS = {
  allErrors: true,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  // Its warnings (an unknown "format") would reach the screen; an unknown format is not checked.
  logger: false,
} as const;

const compilers = new Map<Dialect, Promise<Compiler>>();
const compiled = new WeakMap<object, Validate>();

// Loaded on first use: most sessions compile no schema, and the validator costs start-up time.
function compilerFor(dialect: Dialect): Promise<Compiler> {
  let compiler = compilers.get(dialect);
  if (!compiler) {
    type AjvClass = new (options: object) => Compiler;
    const load: Promise<{ default: unknown }> =
      dialect === "2020-12"
        ? import("ajv/dist/2020.js")
        : dialect === "2019-09"
          ? import("ajv/dist/2019.js")
          : import("ajv");
    compiler = load.then((module) => new (module.default as AjvClass)(OPTIONS));
    compilers.set(dialect, compiler);
  }
  return compiler;
}

/** The dialect a schema declares; `$schema` is dropped for the older drafts draft-07 reads alike. */
function dialectOf(schema: object): { dialect: Dialect; schema: object } {
  const declared = (schema as { $schema?: unknown }).$schema;
  if (typeof declared !== "string") return { dialect: "draft-07", schema };
  if (/json-schema\.org\/draft\/2020-12\/schema/.test(declared))
    return { dialect: "2020-12", schema };
  if (/json-schema\.org\/draft\/2019-09\/schema/.test(declared))
    return { dialect: "2019-09", schema };
  // draft-07 itself, or draft-06/04 (whose documents draft-07 reads alike for what tools declare).
  const { $schema: _declared, ...rest } = schema as Record<string, unknown>;
  return { dialect: "draft-07", schema: rest };
}

/** Compiles `schema` by its dialect; throws with the validator's reason when it does not compile. */
export async function compileJsonSchema(schema: JsonSchema | object): Promise<Validate> {
  const known = compiled.get(schema);
  if (known) return known;
  const { dialect, schema: body } = dialectOf(schema);
  let validate: Validate;
  try {
    validate = (await compilerFor(dialect)).compile(body);
  } catch (error) {
    // Two servers may name different schemas with one `$id`: each keeps its own then.
    if (!/already exists/.test((error as Error).message)) throw error;
    const fresh = compilerFor(dialect).then(
      (shared) => new (shared.constructor as new (options: object) => Compiler)(OPTIONS),
    );
    validate = (await fresh).compile(body);
  }
  compiled.set(schema, validate);
  return validate;
}

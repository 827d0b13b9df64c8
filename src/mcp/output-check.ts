type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};

let ajv: Promise<{ compile(schema: object): Validate }> | null = null;
const compiled = new WeakMap<object, Validate | string>();

/** What the check of structured content found. */
export type OutputCheck =
  | { type: "valid" }
  | { type: "invalid"; problems: string }
  /** The schema itself does not compile: nothing is claimed about the content. */
  | { type: "unchecked"; why: string };

/** Checks structured content against a tool's `outputSchema`. */
export async function checkOutput(schema: object, content: unknown): Promise<OutputCheck> {
  ajv ??= import("ajv").then((module) => {
    const Ajv = module.default as unknown as new (
      options: object,
    ) => {
      compile(schema: object): Validate;
    };
    return new Ajv({
      allErrors: true,
      strict: false,
      coerceTypes: false,
      useDefaults: false,
      // Its warnings (an unknown "format") would reach the screen; an unknown format is not checked.
      logger: false,
    });
  });
  let validate = compiled.get(schema);
  if (validate === undefined) {
    // The draft 2020-12 dialect newer libraries name is not one the validator loads by default.
    const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
    try {
      validate = (await ajv).compile(rest);
    } catch (error) {
      validate = `its output schema does not compile (${(error as Error).message})`;
    }
    compiled.set(schema, validate);
  }
  if (typeof validate === "string") return { type: "unchecked", why: validate };
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

type Validate = ((data: unknown) => boolean) & {
  errors?: Array<{ instancePath: string; message?: string }> | null;
};

let ajv: Promise<{ compile(schema: object): Validate }> | null = null;
const compiled = new WeakMap<object, Validate | string>();

/**
 * Checks structured content against a tool's `outputSchema`: null when it matches, else what does
 * not (a schema that does not compile is said so, and nothing is claimed about the content).
 */
export async function checkOutput(schema: object, content: unknown): Promise<string | null> {
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
    try {
      validate = (await ajv).compile(schema);
    } catch (error) {
      validate = `its output schema does not compile (${(error as Error).message})`;
    }
    compiled.set(schema, validate);
  }
  if (typeof validate === "string") return validate;
  if (validate(content)) return null;
  return (validate.errors ?? [])
    .slice(0, 5)
    .map(
      (error) =>
        `\`${error.instancePath.slice(1).replaceAll("/", ".") || "(top)"}\` ${error.message ?? "is invalid"}`,
    )
    .join("; ");
}

/** A markdown file's front matter (YAML between `---` lines) and the text after it. */
export type FrontMatter =
  | { ok: true; data: Record<string, unknown>; body: string }
  | { ok: false; error: string };

const OPENING = /^---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

type YamlModule = typeof import("yaml");
let yaml: Promise<YamlModule> | null = null;

/**
 * Splits front matter off `text`. No front matter is an empty one. Broken YAML, or YAML that is not a
 * mapping, is an error naming what is wrong; aliases are bounded, so a "billion laughs" file is refused
 * instead of filling memory.
 */
export async function parseFrontMatter(text: string): Promise<FrontMatter> {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const opening = OPENING.exec(source);
  if (!opening) return { ok: true, data: {}, body: source };
  const rest = source.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return { ok: false, error: "its front matter opens with --- but never closes" };
  const head = rest.slice(0, closing.index);
  const body = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, "");
  // Loaded only when a file has front matter: most sessions have no such file.
  yaml ??= import("yaml");
  const { parse } = await yaml;
  let data: unknown;
  try {
    data = parse(head, { maxAliasCount: 50, prettyErrors: false });
  } catch (error) {
    const first = (error as Error).message.split("\n")[0] ?? "";
    return { ok: false, error: `its front matter is not valid YAML (${first})` };
  }
  if (data === null || data === undefined) return { ok: true, data: {}, body };
  if (typeof data !== "object" || Array.isArray(data))
    return { ok: false, error: "its front matter is not a list of `key: value` lines" };
  return { ok: true, data: data as Record<string, unknown>, body };
}

/** A front matter value as one line of text, or null when absent or not text. */
export function textField(data: Record<string, unknown>, key: string): string | null {
  const value = data[key];
  if (typeof value === "string") return value.replace(/\s+/g, " ").trim() || null;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return null;
}

/**
 * Redaction of the secrets nex itself holds (the API key, a proxy's password, key variables of its
 * environment) wherever they appear in text, in the forms a command would print them: as they are,
 * URL-encoded, JSON-escaped, in hexadecimal, and in base64 or base64url at any alignment (the key
 * alone, `user:key`, with a trailing newline, wrapped at any column). Built once per session; every
 * form of every secret is one alternative of a single precompiled expression, so a clean text costs
 * one scan, and a session with no secrets costs nothing.
 */

/** A secret nex holds and the name it is shown under (`[redacted: OPENAI_API_KEY]`). */
export interface KnownSecret {
  /** What the secret is, e.g. `OPENAI_API_KEY` or `HTTPS_PROXY password`; empty shows `[redacted]`. */
  name: string;
  value: string;
}

/** Replaces known secrets in text; `active` is false when there is nothing to look for. */
export interface SecretScrubber {
  readonly active: boolean;
  /** The names secrets are shown under. */
  readonly names: ReadonlySet<string>;
  /** The text with every known secret replaced, and how many were. */
  scrub(text: string): { text: string; redactions: number };
}

// Shorter values would be found inside ordinary words and code; nex's own secrets are longer.
const MIN_SECRET_LENGTH = 8;

/** The secrets of one session, matched by one expression. */
export function createSecretScrubber(secrets: readonly KnownSecret[]): SecretScrubber {
  const names = new Map<string, string>();
  const forms: { form: string; pattern: string }[] = [];
  const add = (form: string, name: string, pattern = escapeRegExp(form)) => {
    if (form.length < MIN_SECRET_LENGTH || names.has(form)) return;
    names.set(form, name);
    forms.push({ form, pattern });
  };
  for (const { name, value } of secrets) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    add(value, name);
    add(encodeURIComponent(value), name);
    add(JSON.stringify(value).slice(1, -1), name);
    const bytes = Buffer.from(value, "utf8");
    // `xxd -p` and `od` break lines and space bytes apart: any short run of space between two bytes.
    const spaced = (hex: string) => hex.match(/../g)?.join("\\s{0,4}") ?? hex;
    add(bytes.toString("hex"), name, spaced(bytes.toString("hex")));
    add(bytes.toString("hex").toUpperCase(), name, spaced(bytes.toString("hex").toUpperCase()));
    for (const core of base64Cores(bytes)) {
      // `base64` wraps its output (at 76 columns by default): a line break may fall anywhere.
      const wrapped = (form: string) => [...form].map(escapeRegExp).join("(?:\\r?\\n)?");
      add(core, name, wrapped(core));
      const url = core.replaceAll("+", "-").replaceAll("/", "_");
      add(url, name, wrapped(url));
    }
  }
  if (forms.length === 0)
    return { active: false, names: new Set(), scrub: (text) => ({ text, redactions: 0 }) };
  // Longest first, so a secret is replaced whole rather than as a shorter form found inside it.
  forms.sort((a, b) => b.form.length - a.form.length);
  const search = new RegExp(forms.map((entry) => entry.pattern).join("|"), "g");
  return {
    active: true,
    names: new Set(secrets.map((secret) => secret.name)),
    scrub(text) {
      let redactions = 0;
      const out = text.replace(search, (match) => {
        redactions += 1;
        const name = names.get(match) ?? names.get(match.replace(/\s+/g, ""));
        return name ? `[redacted: ${name}]` : "[redacted]";
      });
      return { text: redactions === 0 ? text : out, redactions };
    },
  };
}

/**
 * The base64 characters that encode `bytes` whatever precedes them: for each of the three alignments
 * a byte stream can put the secret at, the whole 3-byte groups that lie inside it.
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole >= 6) cores.push(bytes.subarray(skip, skip + whole).toString("base64"));
  }
  return cores;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}

/** A JSON-like value with known secrets replaced in every string; unchanged parts are shared, not copied. */
export function scrubDeep<T>(value: T, scrubber: SecretScrubber): T {
  if (!scrubber.active) return value;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") return scrubber.scrub(v).text;
    if (Array.isArray(v)) {
      const out = v.map(walk);
      return out.some((item, i) => item !== v[i]) ? out : v;
    }
    if (typeof v === "object" && v !== null) {
      let out: Record<string, unknown> | null = null;
      for (const [key, item] of Object.entries(v)) {
        const next = walk(item);
        if (next !== item) {
          out ??= { ...(v as Record<string, unknown>) };
          out[key] = next;
        }
      }
      return out ?? v;
    }
    return v;
  };
  return walk(value) as T;
}

import { mapStrings } from "./map-strings.ts";
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

// Printed forms are broken by white space: `base64` wraps lines (at 76 columns by default), `od` and
// `xxd -p` space and wrap bytes. Secrets are looked for in the text with its white space removed, and
// a match replaces the stretch of the original text it came from. The search is then a plain
// alternation of literals: it compiles in well under a millisecond.
const SPACE = /[ \t\n\v\f\r]+/g;

/** The secrets of one session, matched by one expression. */
export function createSecretScrubber(secrets: readonly KnownSecret[]): SecretScrubber {
  // Each printed form without its white space → the name of its secret.
  const names = new Map<string, string>();
  const add = (form: string, name: string) => {
    const flat = form.replace(SPACE, "");
    if (flat.length >= MIN_SECRET_LENGTH && !names.has(flat)) names.set(flat, name);
  };
  for (const { name, value } of secrets) {
    if (value.length < MIN_SECRET_LENGTH) continue;
    add(value, name);
    add(encodeURIComponent(value), name);
    add(JSON.stringify(value).slice(1, -1), name);
    const bytes = Buffer.from(value, "utf8");
    add(bytes.toString("hex"), name);
    add(bytes.toString("hex").toUpperCase(), name);
    for (const core of base64Cores(bytes)) {
      add(core, name);
      add(core.replaceAll("+", "-").replaceAll("/", "_"), name);
    }
  }
  if (names.size === 0)
    return { active: false, names: new Set(), scrub: (text) => ({ text, redactions: 0 }) };
  // Longest first, so a secret is replaced whole rather than as a shorter form found inside it.
  const forms = [...names.keys()].sort((a, b) => b.length - a.length);
  const search = new RegExp(forms.map(escapeRegExp).join("|"), "g");
  const whole = (text: string): { text: string; redactions: number } => {
    const flat = text.replace(SPACE, "");
    search.lastIndex = 0;
    if (!search.test(flat)) return { text, redactions: 0 };
    // Where each character of `flat` stands in `text`: built only when there is something to replace.
    const origin = new Int32Array(flat.length);
    for (let i = 0, j = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 32 || (c >= 9 && c <= 13)) continue;
      origin[j++] = i;
    }
    let out = "";
    let last = 0;
    let redactions = 0;
    // `matchAll` starts where `test` left `lastIndex`.
    search.lastIndex = 0;
    for (const match of flat.matchAll(search)) {
      const start = origin[match.index] ?? 0;
      const end = (origin[match.index + match[0].length - 1] ?? 0) + 1;
      out += text.slice(last, start) + marker(names.get(match[0]));
      last = end;
      redactions += 1;
    }
    return { text: out + text.slice(last), redactions };
  };
  const pieces = cutPieces(forms, names);
  return {
    active: true,
    names: new Set(secrets.map((secret) => secret.name)),
    scrub(text) {
      const found = whole(text);
      const edges = pieces.atEdges(found.text);
      return { text: edges.text, redactions: found.redactions + edges.redactions };
    },
  };
}

function marker(name: string | undefined): string {
  return name ? `[redacted: ${name}]` : "[redacted]";
}

// A piece of a secret is recognised from this many characters: shorter ones are common prefixes
// (`sk-proj-`) or chance.
const MIN_PIECE = 12;
// Where a tool's output was cut (`output-cap.ts`): the text on either side is an edge.
const CUT_NOTE = /\n\[…[^\n]*…\]\n/g;

/**
 * Pieces of a secret where a text was cut: output kept as head and tail may end in the key's first
 * half and resume with its second, and a UI's last-lines view may start inside it. A text that
 * starts with the end of a form, or ends with the start of one (at least `MIN_PIECE` characters),
 * has that piece redacted, as does the text on each side of a cut note.
 */
function cutPieces(forms: readonly string[], names: ReadonlyMap<string, string>) {
  const starts = new Map<string, string>(); // a form's ending, which a cut text may start with
  const ends = new Map<string, string>(); // a form's beginning, which a cut text may end with
  // Every run of `MIN_PIECE` characters of a form: a text whose edge is none of them is passed by
  // with one lookup per edge.
  const grams = new Set<string>();
  let longest = 0;
  for (const form of forms) {
    const name = names.get(form) ?? "";
    for (let k = MIN_PIECE; k < form.length; k++) {
      if (!starts.has(form.slice(-k))) starts.set(form.slice(-k), name);
      if (!ends.has(form.slice(0, k))) ends.set(form.slice(0, k), name);
    }
    for (let at = 0; at + MIN_PIECE <= form.length; at++) grams.add(form.slice(at, at + MIN_PIECE));
    longest = Math.max(longest, form.length - 1);
  }
  // The longest piece at the start (`fromStart`) or the end of a text, as [length, name].
  const piece = (text: string, fromStart: boolean): [number, string] | null => {
    if (!grams.has(fromStart ? text.slice(0, MIN_PIECE) : text.slice(-MIN_PIECE))) return null;
    for (let k = Math.min(longest, text.length); k >= MIN_PIECE; k--) {
      const name = fromStart ? starts.get(text.slice(0, k)) : ends.get(text.slice(-k));
      if (name !== undefined) return [k, name];
    }
    return null;
  };
  const redactEdges = (text: string, start: boolean, end: boolean) => {
    let out = text;
    let redactions = 0;
    const head = start ? piece(out, true) : null;
    if (head) {
      out = marker(head[1]) + out.slice(head[0]);
      redactions += 1;
    }
    const tail = end ? piece(out, false) : null;
    if (tail) {
      out = out.slice(0, -tail[0]) + marker(tail[1]);
      redactions += 1;
    }
    return { text: out, redactions };
  };
  return {
    atEdges(text: string): { text: string; redactions: number } {
      if (text.length < MIN_PIECE) return { text, redactions: 0 };
      if (!text.includes("…]")) return redactEdges(text, true, true);
      // Each stretch between cut notes has both its edges checked.
      let redactions = 0;
      const parts = text.split(CUT_NOTE);
      const notes = text.match(CUT_NOTE) ?? [];
      const out = parts.map((part) => {
        const edged = redactEdges(part, true, true);
        redactions += edged.redactions;
        return edged.text;
      });
      return {
        text: out.reduce((acc, part, i) => acc + (notes[i - 1] ?? "") + part),
        redactions,
      };
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
  return mapStrings(value, (text) => scrubber.scrub(text).text);
}

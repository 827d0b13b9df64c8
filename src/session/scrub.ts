/**
 * The journal's last line of defence against secrets. Nothing secret should reach it (providers keep keys
 * out of messages and errors), but a model or a tool can echo one, so every string of every record is
 * scanned before it is written, and these shapes are replaced by `[redacted]`:
 * - `sk-...` API keys (OpenAI, Anthropic, OpenRouter style): `sk-` not preceded by a word character,
 *   then at least 20 of `[A-Za-z0-9_-]` including a digit;
 * - `Bearer <token>` / `Basic <credentials>` with at least 16 token characters (the scheme word is kept);
 * - GitHub tokens (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`) and AWS access key ids (`AKIA...`);
 * - the value after `x-api-key`, `api_key`, `api-key`, `apikey` or `authorization` followed by `:` or `=`
 *   (optionally quoted), when it is at least 16 token characters with a digit (the name is kept).
 * Redaction, not refusal: the record is still written, so no conversation is lost. The patterns ask for a
 * digit and a minimum length so that ordinary code (`apiKey = process.env.KEY`) is left alone.
 */

const SECRET =
  /(?<![\w-])sk-(?=[\w-]*\d)[\w-]{20,}|(\b(?:Bearer|Basic)\s+)[\w.~+/-]{16,}=*|\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}|AKIA[0-9A-Z]{16})\b|(\b(?:x-api-key|api[_-]?key|authorization)\b["']?\s*[:=]\s*["']?)(?=[\w.~+/-]*\d)[\w.~+/-]{16,}=*/gi;

const QUICK = /sk-|bearer|basic|api.?key|authorization|gh[pousr]_|github_pat_|AKIA/i;

/** The replacement text for a secret-looking string. */
export const REDACTED = "[redacted]";

/** A string with secret-looking parts replaced, and how many were. */
export function scrubText(text: string): { text: string; redactions: number } {
  if (!QUICK.test(text)) return { text, redactions: 0 };
  let redactions = 0;
  const out = text.replace(
    SECRET,
    (_match, bearer: string | undefined, named: string | undefined) => {
      redactions += 1;
      return (bearer ?? named ?? "") + REDACTED;
    },
  );
  return { text: out, redactions };
}

/** A deep copy of a JSON-like value with every string scrubbed; unchanged parts are shared, not copied. */
export function scrubValue<T>(value: T): { value: T; redactions: number } {
  let redactions = 0;
  const walk = (v: unknown): unknown => {
    if (typeof v === "string") {
      const r = scrubText(v);
      redactions += r.redactions;
      return r.text;
    }
    if (Array.isArray(v)) {
      let changed = false;
      const out = v.map((item) => {
        const next = walk(item);
        if (next !== item) changed = true;
        return next;
      });
      return changed ? out : v;
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
  const value2 = walk(value) as T;
  return { value: value2, redactions };
}

/**
 * The host (and port) of a base URL, dropping scheme, user info, path and query: a key smuggled in a URL
 * never reaches the journal. A value that is not a URL is kept only if it looks like a bare host.
 */
export function hostOnly(baseUrlOrHost: string): string {
  try {
    const host = new URL(baseUrlOrHost).host;
    if (host) return host;
  } catch {
    // not a URL: fall through to the bare-host check
  }
  const bare = /^[A-Za-z0-9.-]+(?::\d+)?$/.exec(baseUrlOrHost.trim());
  return bare ? bare[0] : "unknown";
}

import { mapStrings } from "./map-strings.ts";
import { createSecretScrubber, type SecretScrubber } from "./secret-scrubber.ts";

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
 * - `*_API_KEY=...` values (an environment dump), Hugging Face (`hf_`) and Google (`AIza`) keys, PEM
 *   private key blocks, and passwords in URLs; and, literally, any secret the caller names.
 * Secrets nex holds (its key, a proxy's password) are replaced in every form by `secret-scrubber.ts`,
 * named (`[redacted: OPENAI_API_KEY]`). Redaction, not refusal: the record is still written, so no conversation is lost. The patterns ask for a
 * digit and a minimum length so that ordinary code (`apiKey = process.env.KEY`) is left alone.
 */

const NO_SECRETS = createSecretScrubber([]);

/** The scrubber of `known`: itself, or one built for bare values. */
export function scrubberOf(known: KnownSecrets): SecretScrubber {
  return "scrub" in known
    ? known
    : createSecretScrubber(known.map((value) => ({ name: "", value })));
}

const SECRET =
  /(?<![\w-])sk-(?=[\w-]*\d)[\w-]{20,}|(\b(?:Bearer|Basic)\s+)[\w.~+/-]{16,}=*|\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}|AKIA[0-9A-Z]{16}|hf_[A-Za-z0-9]{30,}|AIza[\w-]{35})\b|((?<![A-Za-z0-9])(?:x-api-key|api[_-]?key|authorization)\b["']?\s*[:=]\s*["']?)(?=[\w.~+/-]*\d)[\w.~+/-]{16,}=*/gi;

// A private key block, and the password part of credentials in a URL (`https://user:pass@host`).
const PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g;
const URL_PASSWORD = /(:\/\/[^/\s:@]+:)[^/\s@]+@/g;

const QUICK =
  /sk-|bearer|basic|api.?key|authorization|gh[pousr]_|github_pat_|AKIA|hf_|AIza|PRIVATE KEY|:\/\/[^/\s@]*@/i;

/** The replacement text for a secret-looking string. */
export const REDACTED = "[redacted]";

/** Secrets the caller holds: a session's scrubber, or bare values (shown as `[redacted]`). */
export type KnownSecrets = SecretScrubber | readonly string[];

/**
 * A string with secret-looking parts replaced, and how many were. `known` are secrets the caller
 * holds (the configured API key): they are replaced wherever they appear, whatever their shape.
 */
export function scrubText(
  text: string,
  known: KnownSecrets = NO_SECRETS,
): { text: string; redactions: number } {
  const first = scrubberOf(known).scrub(text);
  let redactions = first.redactions;
  let out = first.text;
  if (!QUICK.test(out)) return { text: out, redactions };
  const count = (replacement: string) => () => {
    redactions += 1;
    return replacement;
  };
  out = out.replace(PRIVATE_KEY, count(REDACTED));
  out = out.replace(URL_PASSWORD, (_m, head: string) => {
    redactions += 1;
    return `${head}${REDACTED}@`;
  });
  out = out.replace(SECRET, (_match, bearer: string | undefined, named: string | undefined) => {
    redactions += 1;
    return (bearer ?? named ?? "") + REDACTED;
  });
  return { text: out, redactions };
}

/** A deep copy of a JSON-like value with every string scrubbed; unchanged parts are shared, not copied. */
export function scrubValue<T>(
  value: T,
  known: KnownSecrets = NO_SECRETS,
): { value: T; redactions: number } {
  const scrubber = scrubberOf(known);
  let redactions = 0;
  const value2 = mapStrings(value, (text) => {
    const r = scrubText(text, scrubber);
    redactions += r.redactions;
    return r.text;
  });
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

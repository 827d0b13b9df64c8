import type { RetryOptions } from "./http/index.ts";
import {
  defaultTimeouts,
  type HttpFetch,
  httpFetch,
  type Timeouts,
  type TransportOptions,
} from "./http/index.ts";

/** Options every client takes. */
export interface ClientOptions {
  /** OpenAI-compatible: usually ends in `/v1`. Anthropic: the server root (a trailing `/v1` is tolerated). */
  baseUrl: string;
  apiKey?: string;
  /** Extra headers for every request (e.g. OpenRouter's `HTTP-Referer`). */
  headers?: Record<string, string>;
  retry?: RetryOptions;
  timeouts?: Partial<Timeouts>;
  /** The HTTP client; default `httpFetch` (node:http). The global `fetch` fits too. */
  fetch?: HttpFetch;
  /** Where the key comes from, named in 401/403 hints; e.g. `OPENAI_API_KEY`. */
  keyName?: string;
  /** Most bytes read from one response; default 64 MiB (tests use less). */
  maxResponseBytes?: number;
}

/** `host[:port]` of a URL, for messages; the input itself when it does not parse. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** The transport settings of a client; `authHeaders` are the headers that carry the key. */
export function transportFor(
  options: ClientOptions,
  url: string,
  authHeaders: Record<string, string>,
  defaultKeyName: string,
): TransportOptions {
  const secretHeader = /auth|key|token|secret|cookie/i;
  const extra = Object.entries(options.headers ?? {})
    .filter(([name]) => secretHeader.test(name))
    .flatMap(([, value]) => [value, value.replace(/^Bearer\s+/i, "")]);
  const secrets = [
    ...(options.apiKey ? [options.apiKey] : []),
    ...Object.values(authHeaders),
    ...extra,
  ];
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {}
  return {
    fetch: options.fetch ?? httpFetch,
    retry: options.retry ?? {},
    timeouts: { ...defaultTimeouts, ...(options.timeouts ?? {}) },
    ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
    secrets,
    context: {
      host: hostOf(url),
      path,
      keyName: options.keyName ?? defaultKeyName,
      keySent: Boolean(options.apiKey) || Object.keys(authHeaders).length > 0 || extra.length > 0,
    },
  };
}

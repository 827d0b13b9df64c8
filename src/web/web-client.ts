// The web tools' guarded client over nex's HTTP client (net/): it checks every address it connects
// to, after DNS and after each redirect (it follows them itself), and connects to exactly the address
// it checked, so a name that resolves differently the second time (DNS rebinding) cannot swap in a
// private one; a body is capped after decompression.

import type { LookupAddress } from "node:dns";
import {
  createHttpFetch,
  DECODED_ENCODINGS,
  type HttpResponse,
  type ProxyEnv,
  proxied,
} from "../net/index.ts";
import { formatCount } from "../protocol/index.ts";
import { hostAllowed, hostKey, privateKind } from "./address-guard.ts";
import { redactUrl } from "./redact-url.ts";

/** How a name is resolved: every address, as `dns.promises.lookup(name, { all: true })` gives them. */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

/** What the client is allowed and how much it may take. */
export interface WebClientOptions {
  proxy?: ProxyEnv | null;
  /** Hosts (`name:port` or `name`) the user lets fetches reach although their address is private. */
  allowPrivateHosts?: readonly string[];
  /** Most bytes of a body after decompression. */
  maxBytes?: number;
  /** The whole fetch, redirects and body included. */
  timeoutMs?: number;
  /** Most redirects followed. */
  maxRedirects?: number;
  /** Name resolution (default: the system's); tests resolve names of their own. */
  resolve?: Resolve;
}

/** One request of the client. */
export interface WebRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** A host a person approved for this one call although it is private (`name:port`). */
  approvedHost?: string | null;
  /** A search backend the user configured: its address is the user's choice, not the model's. */
  trusted?: boolean;
}

/** A whole response. */
export interface WebResponse {
  /** Where the body came from, after redirects. */
  url: string;
  status: number;
  contentType: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Every URL that answered with a redirect, in order. */
  redirects: string[];
}

/** Why a fetch failed, in words for the model; `kind` lets callers tell them apart. */
export class WebError extends Error {
  override readonly name = "WebError";
  readonly kind: WebErrorKind;
  constructor(kind: WebErrorKind, message: string) {
    super(message);
    this.kind = kind;
  }
}

/** What kind of failure a WebError is. */
export type WebErrorKind =
  | "scheme"
  | "private"
  | "dns"
  | "network"
  | "timeout"
  | "too_large"
  | "redirects"
  | "aborted";

const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_REDIRECTS = 5;
const CREDENTIAL_HEADER = /^(authorization|x-api-key|x-subscription-token|cookie)$/i;

/** A client for the web tools; each call is one request with its redirects. */
export interface WebClient {
  request(url: string, init?: WebRequest): Promise<WebResponse>;
  /** The guard alone: why this URL would be refused before any request, or null. */
  screen(url: string, approvedHost?: string | null): Promise<string | null>;
}

export function createWebClient(options: WebClientOptions = {}): WebClient {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_REDIRECTS;
  const fetch = createHttpFetch({ proxy: options.proxy ?? null, refuseBadPorts: false });
  const checked = addressCheck(options);

  return {
    async screen(raw, approvedHost = null) {
      const url = URL.parse(raw);
      if (!url) return `${raw} is not a URL.`;
      try {
        await checked(url, approvedHost, false);
        return null;
      } catch (error) {
        if (error instanceof WebError && (error.kind === "private" || error.kind === "scheme"))
          return error.message;
        return null;
      }
    },
    async request(raw, init = {}) {
      let url = URL.parse(raw);
      if (!url) throw new WebError("scheme", `${raw} is not a URL.`);
      const deadline = AbortSignal.timeout(timeoutMs);
      const signal = init.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
      let method = init.method ?? "GET";
      let body = init.body;
      let headers: Record<string, string> = {
        "user-agent": "nex (a coding agent; web tools)",
        "accept-encoding": "gzip, deflate, br",
        ...init.headers,
      };
      const redirects: string[] = [];
      const trustedOrigin = url.origin;
      try {
        for (;;) {
          const addresses = await checked(
            url,
            init.approvedHost ?? null,
            // A configured backend is trusted at its own origin, not where it redirects to.
            (init.trusted ?? false) && url.origin === trustedOrigin,
            signal,
          );
          const response = await fetch(url.href, {
            method,
            headers,
            ...(body !== undefined ? { body } : {}),
            signal,
            redirect: "manual",
            pinned: addresses,
          });
          const location = response.headers.get("location");
          const status = response.status;
          if (![301, 302, 303, 307, 308].includes(status) || location === null) {
            const bytes = await readBody(response, maxBytes, url);
            const flat: Record<string, string> = Object.fromEntries(
              response.headers.entries?.() ?? [],
            );
            return {
              url: url.href,
              status,
              contentType: flat["content-type"] ?? "",
              headers: flat,
              body: bytes,
              redirects,
            };
          }
          response.discard?.();
          redirects.push(url.href);
          if (redirects.length > maxRedirects)
            throw new WebError(
              "redirects",
              `${redactUrl(raw)} redirected more than ${maxRedirects} times (${redirects.length} so far); not followed further.`,
            );
          const next = URL.parse(location, url.href);
          if (!next)
            throw new WebError("network", `${redactUrl(url.href)} redirected to a malformed URL.`);
          if (next.origin !== url.origin)
            headers = Object.fromEntries(
              Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADER.test(name)),
            );
          if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          }
          // A person's yes covered the host they saw, not a host the page sends the fetch on to.
          if (init.approvedHost && hostKey(next) !== init.approvedHost)
            init = { ...init, approvedHost: null };
          url = next;
        }
      } catch (error) {
        if (error instanceof WebError) throw error;
        if (init.signal?.aborted) throw new WebError("aborted", "The fetch was cancelled.");
        if (deadline.aborted)
          throw new WebError(
            "timeout",
            `${url.host} did not answer in full within ${Math.round(timeoutMs / 1000)} s; the fetch was stopped.`,
          );
        // The client rejects like fetch: a TypeError whose cause is the system error.
        const failure = ((error as { cause?: unknown }).cause ?? error) as {
          code?: string;
          message?: string;
        };
        const cause = failure.code ?? failure.message;
        throw new WebError("network", `${url.host} could not be reached (${cause}).`);
      }
    },
  };
}

/**
 * The addresses to connect to, all checked; throws when one is private and not allowed. Null when
 * only the proxy can resolve the name (it gets the name, unpinned).
 */
type CheckAddresses = (
  url: URL,
  approvedHost: string | null,
  trusted: boolean,
  signal?: AbortSignal,
) => Promise<LookupAddress[] | null>;

function addressCheck(options: WebClientOptions): CheckAddresses {
  const allowed = options.allowPrivateHosts ?? [];
  const resolve: Resolve =
    options.resolve ??
    (async (hostname) => {
      const dns = process.getBuiltinModule("node:dns") as typeof import("node:dns");
      return dns.promises.lookup(hostname, { all: true, verbatim: true });
    });

  return async (url, approvedHost, trusted, signal) => {
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new WebError(
        "scheme",
        `${url.protocol.replace(/:$/, "")}: URLs are not fetched; only http and https are.`,
      );
    const literal = url.hostname.replace(/^\[|\]$/g, "");
    const { isIP } = process.getBuiltinModule("node:net") as typeof import("node:net");
    let addresses: LookupAddress[];
    if (isIP(literal)) addresses = [{ address: literal, family: isIP(literal) }];
    else {
      try {
        // A resolver that hangs is bounded by the fetch's own deadline and cancel.
        addresses = signal ? await abortable(resolve(literal), signal) : await resolve(literal);
      } catch (error) {
        if (signal?.aborted) throw error;
        const code = (error as { code?: string }).code ?? (error as Error).message;
        // Behind a proxy, names are often resolved only there: the proxy gets the name, unpinned.
        if (proxied(url, options.proxy ?? null) && (code === "ENOTFOUND" || code === "EAI_AGAIN"))
          return null;
        throw new WebError(
          "dns",
          `${url.hostname} could not be resolved (${code}): check the name, or the network (nex may be offline).`,
        );
      }
      if (addresses.length === 0)
        throw new WebError("dns", `${url.hostname} has no address (nex may be offline).`);
    }
    if (trusted) return addresses;
    const exempt = hostAllowed(url, allowed) || approvedHost === hostKey(url);
    for (const { address } of addresses) {
      const kind = privateKind(address);
      if (kind && !exempt) {
        const resolvedTo = address === literal ? "" : ` resolves to ${address}, which is`;
        throw new WebError(
          "private",
          `${url.host}${resolvedTo || " is"} a ${kind} address; nex does not fetch from private addresses unseen. If the user wants it, they can add "${hostKey(url)}" to "web": {"allowPrivateHosts": [...]} in the config, or approve this one call in the chat.`,
        );
      }
    }
    return addresses;
  };
}

/** The body, decompressed, at most `maxBytes`: a larger one (or a compression bomb) is refused. */
async function readBody(response: HttpResponse, maxBytes: number, url: URL): Promise<Buffer> {
  const declared = Number(response.headers.get("content-length"));
  const tooLarge = (seen: string) =>
    new WebError(
      "too_large",
      `${redactUrl(url.href)} is larger than ${formatMiB(maxBytes)} (${seen}); it was not read. Raise "web": {"maxPageBytes": ...} in the config if the user needs it.`,
    );
  const encoding = (response.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (!encoding && Number.isFinite(declared) && declared > maxBytes) {
    response.discard?.();
    throw tooLarge(`${formatCount(declared)} bytes announced`);
  }
  if (encoding && encoding !== "identity" && !DECODED_ENCODINGS.includes(encoding)) {
    response.discard?.();
    throw new WebError(
      "network",
      `${redactUrl(url.href)} answered in the ${encoding} encoding, which nex does not decode (it asked for gzip, deflate or br).`,
    );
  }
  const parts: Buffer[] = [];
  let size = 0;
  let whole = false;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.length;
      if (size > maxBytes)
        throw tooLarge(encoding ? `after ${encoding} decompression` : "more came");
      parts.push(chunk as Buffer);
    }
    whole = true;
  } finally {
    // The rest of a refused body is not read: the connection is closed.
    if (!whole) response.discard?.();
  }
  return Buffer.concat(parts);
}

function formatMiB(bytes: number): string {
  return bytes >= 1024 * 1024
    ? `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) ? 1 : 0)} MiB`
    : `${Math.round(bytes / 1024)} KiB`;
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener("abort", stop, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", stop);
        resolve(value);
      },
      (error) => {
        signal.removeEventListener("abort", stop);
        reject(error);
      },
    );
  });
}

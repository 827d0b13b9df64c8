// nex's one HTTP client: a small fetch over node:http/https, for the model endpoints and the web tools.
// The global `fetch` (undici) costs ~25 ms of start-up and several times node:http's CPU per request;
// a session makes hundreds of requests. Callers send a string body and read status, headers and body
// chunks (decompressed), which this gives them; the web tools also pin the addresses they checked.
import type { LookupAddress } from "node:dns";
import type { IncomingMessage } from "node:http";
import type { LookupFunction } from "node:net";
import type { Readable } from "node:stream";
import { type ProxyAgentFor, type ProxyEnv, proxyAgents, proxyOf } from "./proxy.ts";

// Loaded with getBuiltinModule, not `import`: an ESM import of node:http builds a facade of all its
// exports, and reading the lazy ones (WebSocket and friends) loads undici, the very cost avoided here.
type HttpModule = typeof import("node:http");

/** One request: a method, headers and an optional string body; `signal` cancels it at any point. */
export interface HttpRequestInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
  /** "manual" answers a redirect as it came (fetch's `redirect: "manual"`); the default follows it. */
  redirect?: "follow" | "manual";
  /**
   * Connect to exactly these addresses (the ones a caller checked), on a connection of the request's
   * own, never to a second lookup's answer; a URL that goes through the proxy is resolved there.
   */
  pinned?: readonly LookupAddress[] | null;
}

/** What nex reads of a response; a fetch `Response` has these too. */
export interface HttpResponse {
  status: number;
  ok: boolean;
  headers: {
    get(name: string): string | null;
    /** Every header, names in lower case (for a caller that needs a whole fetch `Response`). */
    entries?(): Iterable<[string, string]>;
  };
  /** The (decoded) body; stopping the iteration early discards the rest of it. */
  body: AsyncIterable<Uint8Array> | null;
  /** Closes the connection without reading the body (a redirect not followed, a body refused). */
  discard?(): void;
}

/** A fetch-shaped function: `httpFetch`, or the global `fetch`. */
export type HttpFetch = (url: string, init: HttpRequestInit) => Promise<HttpResponse>;

// An API answers in place or after one or two redirects (http → https, a moved path); fetch's 20
// would let a loop cost twenty requests.
const MAX_REDIRECTS = 5;
// Headers that carry a key: never sent on to another origin by a redirect.
const CREDENTIAL_HEADER = /^(authorization|x-api-key|cookie|proxy-authorization)$/i;

/** How a client is made: its proxy settings, and whether fetch's refused ports stay refused. */
export interface HttpClientOptions {
  proxy?: ProxyEnv | null;
  /** Refuse the ports fetch refuses (default); the web tools keep their own address checks instead. */
  refuseBadPorts?: boolean;
}

/**
 * A fetch-shaped client; with proxy settings its requests go through the proxy (CONNECT for https)
 * except for hosts in NO_PROXY.
 */
export function createHttpFetch(options: HttpClientOptions = {}): HttpFetch {
  let agents: Promise<ProxyAgentFor | null> | null = null;
  const agentsFor = (): Promise<ProxyAgentFor | null> => {
    agents ??= options.proxy ? proxyAgents(options.proxy) : Promise.resolve(null);
    return agents;
  };
  const refuseBadPorts = options.refuseBadPorts ?? true;
  return async (url, init) => {
    try {
      return await fetchVia(url, init, await agentsFor(), refuseBadPorts);
    } catch (error) {
      throw options.proxy ? markProxied(error, url, options.proxy) : error;
    }
  };
}

/**
 * A network failure of a proxied request names the proxy (host only, never its credentials): a
 * refused connection there is the proxy's, not the server's.
 */
function markProxied(error: unknown, url: string, proxy: ProxyEnv): unknown {
  const target = URL.parse(url);
  if (!target || !(error instanceof TypeError)) return error;
  const via = proxyOf(target, proxy);
  if (!via) return error;
  const cause = (error.cause ?? {}) as Record<string, unknown>;
  return new TypeError(error.message, { cause: Object.assign(cause, { proxy: via.host }) });
}

/**
 * Sends one request and resolves with the response once its headers arrived. Network failures
 * reject like fetch does (a TypeError whose `cause` is the system error, e.g. ECONNREFUSED).
 * Redirects are followed as fetch follows them; keys are not carried to another origin.
 */
export const httpFetch: HttpFetch = createHttpFetch();

async function fetchVia(
  url: string,
  init: HttpRequestInit,
  agentFor: ProxyAgentFor | null,
  refuseBadPorts: boolean,
): Promise<HttpResponse> {
  let target = refusedLikeFetch(url, undefined, refuseBadPorts);
  let { method, body } = init;
  let headers = { ...init.headers };
  for (let redirects = 0; ; redirects++) {
    const agent = agentFor?.(target);
    const sent = await send(
      target,
      { method, headers, body, signal: init.signal, pinned: init.pinned },
      agent,
    );
    const { response } = sent;
    const location = response.headers.location;
    if (init.redirect === "manual" || !isRedirect(response.statusCode) || location === undefined)
      return wrap(sent, init);
    response.resume();
    if (redirects >= MAX_REDIRECTS) {
      throw new TypeError("fetch failed", { cause: new Error("too many redirects") });
    }
    const next = refusedLikeFetch(location, target, refuseBadPorts);
    if (next.origin !== target.origin) {
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) => !CREDENTIAL_HEADER.test(name)),
      );
    }
    const status = response.statusCode ?? 0;
    if (status === 303 || ((status === 301 || status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
      headers = Object.fromEntries(
        Object.entries(headers).filter(([name]) => !/^content-/i.test(name)),
      );
    }
    target = next;
  }
}

// The ports fetch refuses to connect to (the Fetch standard's "bad ports"). nex refuses them as fetch
// did, with fetch's words, so that such a base URL stays a configuration error and is never retried.
const BAD_PORTS = new Set([
  1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102,
  103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465,
  512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993,
  995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668,
  6669, 6679, 6697, 10080,
]);

/** The URL to request, or a rejection in fetch's words for one fetch would refuse before connecting. */
function refusedLikeFetch(url: string, base: URL | undefined, refuseBadPorts: boolean): URL {
  let target: URL;
  try {
    target = new URL(url, base);
  } catch (error) {
    throw new TypeError("fetch failed", { cause: new Error("Invalid URL", { cause: error }) });
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new TypeError("fetch failed", {
      cause: new Error(`unsupported protocol ${target.protocol}`),
    });
  }
  const port = Number(target.port || (target.protocol === "https:" ? 443 : 80));
  if (refuseBadPorts && BAD_PORTS.has(port))
    throw new TypeError("fetch failed", { cause: new Error("bad port") });
  return target;
}

function isRedirect(status: number | undefined): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

/** A response whose headers arrived; `release` stops the signal from cancelling it. */
interface Sent {
  response: IncomingMessage;
  release: () => void;
}

function send(
  target: URL,
  init: HttpRequestInit,
  agent: import("node:http").Agent | undefined,
): Promise<Sent> {
  const { signal } = init;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const module = process.getBuiltinModule(
      target.protocol === "https:" ? "node:https" : "node:http",
    );
    const request = (module as HttpModule).request;
    const headers: Record<string, string | number> = { ...init.headers };
    if (init.body !== undefined) headers["content-length"] = Buffer.byteLength(init.body);
    const req = request(target, {
      method: init.method,
      headers,
      ...(agent
        ? { agent }
        : init.pinned
          ? { agent: false, lookup: pinnedLookup(init.pinned) }
          : {}),
    });
    const onAbort = () => req.destroy(signal?.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    const release = () => signal?.removeEventListener("abort", onAbort);
    req.on("response", (response) => {
      // The signal keeps cancelling while the body is read, until the reader is done with it.
      response.once("close", release);
      resolve({ response, release });
    });
    req.on("error", (error) => {
      signal?.removeEventListener("abort", onAbort);
      reject(signal?.aborted ? signal.reason : new TypeError("fetch failed", { cause: error }));
    });
    req.end(init.body);
  });
}

/** A lookup that answers with the given addresses, whatever the name. */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_name, options, callback) => {
    const first = addresses[0] as LookupAddress;
    if (options.all) callback(null, [...addresses]);
    else callback(null, first.address, first.family);
  };
}

function wrap({ response, release }: Sent, init: HttpRequestInit): HttpResponse {
  const status = response.statusCode ?? 0;
  const body = decoded(response);
  return {
    status,
    ok: status >= 200 && status < 300,
    headers: {
      get(name) {
        const value = response.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(", ") : value;
      },
      *entries() {
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) yield [name, Array.isArray(value) ? value.join(", ") : value];
        }
      },
    },
    body: chunks(response, body, init.signal, release),
    discard() {
      release();
      body.destroy();
      response.destroy();
    },
  };
}

/** The content encodings the client undoes; a body in another is passed on as it came. */
export const DECODED_ENCODINGS: readonly string[] = ["gzip", "x-gzip", "deflate", "br"];

/**
 * The body as the server meant it: servers may compress even unasked, as fetch would undo. The
 * decoder gives 16 KiB chunks, so a reader's cap stops a compression bomb before it is inflated whole.
 */
function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  if (!DECODED_ENCODINGS.includes(encoding)) return response;
  const zlib = process.getBuiltinModule("node:zlib") as typeof import("node:zlib");
  const decoder =
    encoding === "br"
      ? zlib.createBrotliDecompress()
      : encoding === "deflate"
        ? zlib.createInflate()
        : zlib.createGunzip();
  response.on("error", (error) => decoder.destroy(error));
  return response.pipe(decoder);
}

/**
 * Chunks of a body; failures reject like fetch's body does. A reader that stops before the end (an
 * SSE reader stops at its terminator) leaves the rest to be read quietly, so the connection can serve
 * the next request; a rest that is large or slow is cut instead.
 */
async function* chunks(
  response: IncomingMessage,
  body: Readable,
  signal: AbortSignal | undefined,
  release: () => void,
): AsyncGenerator<Uint8Array> {
  let stoppedEarly = true;
  try {
    for await (const chunk of body.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
    stoppedEarly = false;
  } catch (error) {
    stoppedEarly = false;
    response.destroy();
    if (signal?.aborted) throw signal.reason;
    throw new TypeError("terminated", { cause: error });
  } finally {
    release();
    if (stoppedEarly) drain(response, body);
  }
}

const DRAIN_BYTES = 64 * 1024;
const DRAIN_MS = 2_000;

function drain(response: IncomingMessage, body: Readable): void {
  if (body.readableEnded || body.destroyed) return;
  let left = DRAIN_BYTES;
  const cut = () => {
    clearTimeout(timer);
    response.destroy();
    body.destroy();
  };
  const timer = setTimeout(cut, DRAIN_MS);
  timer.unref();
  body.on("data", (chunk: Uint8Array) => {
    left -= chunk.length;
    if (left < 0) cut();
  });
  body.once("end", () => clearTimeout(timer));
  body.on("error", () => clearTimeout(timer));
  body.resume();
}

/** The whole body as text, or null when it is larger than `maxBytes` (the rest is not read). */
export async function readText(
  body: AsyncIterable<Uint8Array> | null,
  maxBytes: number,
): Promise<string | null> {
  if (!body) return "";
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > maxBytes) return null;
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString("utf8");
}

// The proxy a filtered command's connections go through, in nex's process, on a Unix socket that is
// bound into the command's sandbox. HTTPS goes through `CONNECT host:port` as an opaque tunnel (no TLS
// is intercepted); plain HTTP is forwarded. Each host is checked against the allowlist, then resolved
// here and every address checked, and the checked address is the one connected to.
import { mkdtempSync, rmSync } from "node:fs";
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  request,
  type ServerResponse,
} from "node:http";
import { connect, isIP, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { entryFor, type HostAllowlist, normalHost } from "./allowlist.ts";

/** Every address of a name, as `dns.lookup(host, { all: true })` gives them. */
export type ResolveHost = (host: string) => Promise<{ address: string }[]>;

export interface FilterProxyOptions {
  allow: HostAllowlist;
  /** Why an address is not public ("loopback", "private", ...), or null for a public one. */
  addressKind: (address: string) => string | null;
  /** Name resolution (tests map names to loopback addresses); the system's by default. */
  resolve?: ResolveHost;
}

/** A connection the proxy refused, told to the model after the command. */
export interface Refusal {
  host: string;
  port: number;
  /** Why, when the host is allowed but where it leads is not ("resolves to a loopback address"). */
  why: string | null;
  /** The `allowHosts` entry that would allow it. */
  entry: string;
}

export interface FilterProxy {
  /** The proxy's Unix socket on this machine (in a 0700 directory of its own). */
  readonly socket: string;
  /** Each host:port refused since the start, once, in order. */
  refusals(): Refusal[];
  /** Allowed hosts that could not be resolved or reached, each said once. */
  failures(): string[];
  /** Stops listening, ends every open connection and removes the socket. */
  close(): void;
}

// Tunnels of one command at a time; a build fetching in parallel opens a few dozen.
const MAX_CONNECTIONS = 256;
const CONNECT_TIMEOUT_MS = 30_000;
// A command that tries a thousand hosts is told of the first ones.
const MAX_REFUSALS = 50;
// Unix socket paths are at most 107 bytes; a deep TMPDIR falls back to /tmp.
const MAX_SOCKET_PATH = 100;

const systemResolve: ResolveHost = async (host) =>
  (await import("node:dns")).promises.lookup(host, { all: true, verbatim: true });

/** The text a refused client reads and the note the model gets. */
export function refusalText(refusal: Refusal): string {
  const target = `${refusal.host.includes(":") ? `[${refusal.host}]` : refusal.host}:${refusal.port}`;
  const why = refusal.why ? ` ${refusal.why}` : "";
  return `Blocked by the sandbox's network filter: ${target}${why} (allow it with sandbox.allowHosts: ["${refusal.entry}"] in your nex config, or --allow-host ${refusal.entry}).`;
}

type Decision =
  | { type: "go"; addresses: string[] }
  | { type: "refused"; refusal: Refusal }
  | { type: "failed"; status: number; message: string };

/** Starts the proxy on a fresh Unix socket. */
export async function startFilterProxy(options: FilterProxyOptions): Promise<FilterProxy> {
  const resolveHost = options.resolve ?? systemResolve;
  const base = join(tmpdir(), "nex-net-XXXXXX", "proxy.sock").length <= MAX_SOCKET_PATH;
  const dir = mkdtempSync(join(base ? tmpdir() : "/tmp", "nex-net-"));
  const socket = join(dir, "proxy.sock");
  const refused = new Map<string, Refusal>();
  const failures = new Set<string>();
  /** An allowed host that could not be reached: the client's answer, and a note for the model. */
  const failed = (text: string) => {
    if (failures.size < MAX_REFUSALS) failures.add(text);
    return text;
  };
  const open = new Set<Duplex>();

  const decide = async (rawHost: string, port: number): Promise<Decision> => {
    const host = normalHost(rawHost);
    const refuse = (why: string | null, entry = entryFor(host, port)): Decision => {
      const refusal = { host, port, why, entry };
      const key = `${host}:${port}`;
      if (!refused.has(key) && refused.size < MAX_REFUSALS) refused.set(key, refusal);
      return { type: "refused", refusal };
    };
    if (host === "" || !Number.isInteger(port) || port < 1 || port > 65535)
      return { type: "failed", status: 400, message: "The proxy needs a host and a port." };
    const rule = options.allow.allows(host, port);
    if (!rule) return refuse(null);
    let addresses: string[];
    try {
      addresses = isIP(host) ? [host] : (await resolveHost(host)).map((one) => one.address);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? "no answer";
      return {
        type: "failed",
        status: 502,
        message: failed(`Could not resolve ${host} (${code}).`),
      };
    }
    // A name under a preset or a wildcard never leads to this machine or its network: only a host
    // the user listed by itself may (a registry on the LAN).
    const usable = addresses.filter((address) => rule.exact || !options.addressKind(address));
    if (usable.length === 0) {
      const first = addresses[0] ?? "";
      const kind = options.addressKind(first) ?? "no";
      return refuse(
        `resolves to a ${kind} address (${first}), which only a host listed by its own name may reach`,
        entryFor(host, port, true),
      );
    }
    return { type: "go", addresses: usable };
  };

  /** Connects to the first address that answers. */
  const dial = (addresses: string[], port: number): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const next = (index: number, last: Error | null) => {
        const address = addresses[index];
        if (address === undefined) {
          reject(last ?? new Error("no address"));
          return;
        }
        const upstream = connect({ host: address, port });
        upstream.setTimeout(CONNECT_TIMEOUT_MS, () => upstream.destroy(new Error("timed out")));
        upstream.once("connect", () => {
          upstream.setTimeout(0);
          upstream.removeAllListeners("error");
          resolve(upstream);
        });
        upstream.once("error", (error) => next(index + 1, error));
      };
      next(0, null);
    });

  const track = (stream: Duplex) => {
    open.add(stream);
    stream.once("close", () => open.delete(stream));
    stream.on("error", () => stream.destroy());
  };

  const server = createServer();
  server.maxConnections = MAX_CONNECTIONS;
  server.on("connection", track);

  const tunnel = async (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    // The port as written (a URL would drop :80); the host as a URL reads it (case, IDNA, 0x7f.1).
    const written = /^(\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(req.url ?? "");
    const target = written ? URL.parse(`http://${written[1]}`) : null;
    const port = Number(written?.[2]);
    const decision = target
      ? await decide(target.hostname, port)
      : ({ type: "failed", status: 400, message: "CONNECT needs host:port." } as const);
    if (decision.type !== "go") {
      const [status, text] =
        decision.type === "refused"
          ? [403, refusalText(decision.refusal)]
          : [decision.status, decision.message];
      client.end(
        `HTTP/1.1 ${status} ${status === 403 ? "Forbidden" : status === 400 ? "Bad Request" : "Bad Gateway"}\r\n` +
          `Content-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text) + 1}\r\nConnection: close\r\n\r\n${text}\n`,
      );
      return;
    }
    let upstream: Socket;
    try {
      upstream = await dial(decision.addresses, port);
    } catch (error) {
      const text = failed(`Could not connect to ${req.url}: ${(error as Error).message}.`);
      client.end(
        `HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(text) + 1}\r\nConnection: close\r\n\r\n${text}\n`,
      );
      return;
    }
    track(upstream);
    if (client.destroyed) {
      upstream.destroy();
      return;
    }
    client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
    upstream.once("close", () => client.destroy());
    client.once("close", () => upstream.destroy());
  };

  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const reply = (status: number, text: string) => {
      res.writeHead(status, { "content-type": "text/plain", connection: "close" });
      res.end(`${text}\n`);
    };
    const target = URL.parse(req.url ?? "");
    if (target?.protocol !== "http:") {
      reply(400, "This is nex's sandbox proxy: send http:// URLs in absolute form, or CONNECT.");
      return;
    }
    const port = Number(target.port || 80);
    const decision = await decide(target.hostname, port);
    if (decision.type === "refused") return reply(403, refusalText(decision.refusal));
    if (decision.type === "failed") return reply(decision.status, decision.message);
    let upstream: Socket;
    try {
      upstream = await dial(decision.addresses, port);
    } catch (error) {
      return reply(
        502,
        failed(`Could not connect to ${target.host}: ${(error as Error).message}.`),
      );
    }
    track(upstream);
    const onward = request({
      createConnection: () => upstream,
      method: req.method ?? "GET",
      path: `${target.pathname}${target.search}`,
      headers: forwardedHeaders(req, target.host),
    });
    onward.on("response", (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, answerHeaders(answer));
      answer.pipe(res);
    });
    onward.on("error", () => {
      if (!res.headersSent) reply(502, `The connection to ${target.host} failed.`);
      else res.destroy();
    });
    req.pipe(onward);
  };

  // A fault in one connection ends that connection, never nex (an unhandled rejection would).
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    tunnel(req, client, head).catch(() => client.destroy());
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    forward(req, res).catch(() => res.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socket, () => {
      server.off("error", reject);
      resolve();
    });
  });
  server.on("error", () => {});

  return {
    socket,
    refusals: () => [...refused.values()],
    failures: () => [...failures],
    close() {
      server.close();
      for (const stream of open) stream.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// Headers about one hop, never passed on (RFC 9110 §7.6.1), and the proxy's own credentials.
const HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function passed(rawHeaders: string[], connection: string | undefined): [string, string][] {
  const named = new Set(
    (connection ?? "")
      .split(",")
      .map((name) => name.trim().toLowerCase())
      .filter(Boolean),
  );
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    const lower = name.toLowerCase();
    if (!HOP.has(lower) && !named.has(lower)) pairs.push([name, rawHeaders[i + 1] as string]);
  }
  return pairs;
}

function forwardedHeaders(req: IncomingMessage, host: string): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of passed(req.rawHeaders, req.headers.connection)) {
    // The host checked is the host asked: a Host header naming another site on the same server
    // (a shared CDN address) would reach what the allowlist never named.
    if (name.toLowerCase() === "host") continue;
    const existing = headers[name];
    headers[name] = existing === undefined ? value : [existing as string, value].flat();
  }
  headers.host = host;
  headers.connection = "close";
  return headers;
}

/** The answer's headers as a flat name, value list (repeated ones, such as Set-Cookie, kept apart). */
function answerHeaders(answer: IncomingMessage): string[] {
  return passed(answer.rawHeaders, answer.headers.connection).flat();
}

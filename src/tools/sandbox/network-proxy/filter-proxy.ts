// The proxy a filtered command's connections go through, in nex's process, on a Unix socket that is
// bound into the command's sandbox. HTTPS goes through `CONNECT host:port` as an opaque tunnel (no TLS
// is intercepted); plain HTTP is forwarded. Each host is checked against the allowlist, then resolved
// here and every address checked, and the checked address is the one connected to.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { createDecider, type FilterProxyOptions, type Refusal } from "./proxy-decision.ts";
import { forward, tunnel } from "./proxy-handlers.ts";

export {
  type FilterProxyOptions,
  type Refusal,
  type ResolveHost,
  refusalText,
} from "./proxy-decision.ts";

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
// Unix socket paths are at most 107 bytes; a deep TMPDIR falls back to /tmp.
const MAX_SOCKET_PATH = 100;

/** Starts the proxy on a fresh Unix socket. */
export async function startFilterProxy(options: FilterProxyOptions): Promise<FilterProxy> {
  const base = join(tmpdir(), "nex-net-XXXXXX", "proxy.sock").length <= MAX_SOCKET_PATH;
  const dir = mkdtempSync(join(base ? tmpdir() : "/tmp", "nex-net-"));
  const socket = join(dir, "proxy.sock");
  const decider = createDecider(options);
  const open = new Set<Duplex>();

  const track = (stream: Duplex) => {
    open.add(stream);
    stream.once("close", () => open.delete(stream));
    stream.on("error", () => stream.destroy());
  };

  const server = createServer();
  server.maxConnections = MAX_CONNECTIONS;
  server.on("connection", track);

  const context = { decider, track };

  // A fault in one connection ends that connection, never nex (an unhandled rejection would).
  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    tunnel(context, req, client, head).catch(() => client.destroy());
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    forward(context, req, res).catch(() => res.destroy());
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
    refusals: () => decider.refusals(),
    failures: () => decider.failures(),
    close() {
      server.close();
      for (const stream of open) stream.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// The proxy's two ways through: a CONNECT tunnel (HTTPS, opaque) and a forwarded plain-HTTP
// request, each to an address the decider checked.
import { type IncomingMessage, request, type ServerResponse } from "node:http";
import { connect, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import { type Decider, refusalText } from "./proxy-decision.ts";
import { answerHeaders, forwardedHeaders } from "./proxy-headers.ts";

const CONNECT_TIMEOUT_MS = 30_000;

/** What each connection needs: the decider, and the proxy's list of open streams. */
export interface ProxyContext {
  decider: Decider;
  track(stream: Duplex): void;
}

/** Connects to the first address that answers. */
function dial(addresses: string[], port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
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
}

/** A CONNECT tunnel: the client's bytes piped to the checked address and back. */
export async function tunnel(
  { decider, track }: ProxyContext,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
): Promise<void> {
  track(client);
  // The port as written (a URL would drop :80); the host as a URL reads it (case, IDNA, 0x7f.1).
  const written = /^(\[[^\]]*\]|[^:]*):(\d{1,5})$/.exec(req.url ?? "");
  const target = written ? URL.parse(`http://${written[1]}`) : null;
  const port = Number(written?.[2]);
  const decision = target
    ? await decider.decide(target.hostname, port)
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
    const text = decider.failed(`Could not connect to ${req.url}: ${(error as Error).message}.`);
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
}

/** A plain-HTTP request in absolute form, forwarded to the checked address. */
export async function forward(
  { decider, track }: ProxyContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
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
  const decision = await decider.decide(target.hostname, port);
  if (decision.type === "refused") return reply(403, refusalText(decision.refusal));
  if (decision.type === "failed") return reply(decision.status, decision.message);
  let upstream: Socket;
  try {
    upstream = await dial(decision.addresses, port);
  } catch (error) {
    return reply(
      502,
      decider.failed(`Could not connect to ${target.host}: ${(error as Error).message}.`),
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
}

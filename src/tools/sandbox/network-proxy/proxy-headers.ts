// The headers a forwarded plain-HTTP request and its answer carry on: none about one hop, none of
// the proxy's own credentials, and the Host the allowlist checked.
import type { IncomingMessage, OutgoingHttpHeaders } from "node:http";

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

export function forwardedHeaders(req: IncomingMessage, host: string): OutgoingHttpHeaders {
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
export function answerHeaders(answer: IncomingMessage): string[] {
  return passed(answer.rawHeaders, answer.headers.connection).flat();
}

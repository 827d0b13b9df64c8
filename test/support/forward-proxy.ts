// A minimal HTTP forward proxy on 127.0.0.1 that logs what passes through it: absolute-form requests
// for http targets, and CONNECT tunnels for https ones. Hosts ending in `.test` resolve to 127.0.0.1
// here only, so a request that names one can have arrived only through the proxy.
import { createServer, request } from "node:http";
import { connect } from "node:net";

/** A running proxy and the requests it saw (`GET http://host/path`, `CONNECT host:443`). */
export interface ForwardProxy {
  url: string;
  seen: string[];
  close(): Promise<void>;
}

const resolveHost = (host: string): string => (host.endsWith(".test") ? "127.0.0.1" : host);

export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? "");
    const forwarded = request(
      {
        host: resolveHost(target.hostname),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.destroy());
    req.pipe(forwarded);
  });
  server.on("connect", (req, socket, head) => {
    seen.push(`CONNECT ${req.url}`);
    const [host = "", port = "443"] = (req.url ?? "").split(":");
    const upstream = connect(Number(port), resolveHost(host), () => {
      socket.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("error", () => socket.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, globalAgent, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import { createHttpFetch, httpFetch, readText } from "../../src/net/index.ts";
import { describeFetchError } from "../../src/providers/http/transport.ts";
import { startForwardProxy } from "../support/forward-proxy.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const servers: Array<ReturnType<typeof createServer>> = [];
after(() => {
  for (const server of servers) server.close();
});

async function serve(
  handle: (seen: Seen, res: ServerResponse) => void,
): Promise<{ url: string; seen: Seen[]; connections: () => number }> {
  const seen: Seen[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const entry = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      seen.push(entry);
      handle(entry, res);
    });
  });
  server.on("connection", () => {
    connections += 1;
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, connections: () => connections };
}

test("a POST redirected with 307 is sent again with its body, and the key stays within the origin", async () => {
  const other = await serve((_, res) => res.end("elsewhere"));
  const origin = await serve((seen, res) => {
    if (seen.url === "/v1/old") {
      res.writeHead(307, { location: "/v1/new" }).end();
    } else if (seen.url === "/v1/new") {
      res.writeHead(308, { location: `${other.url}/v1/final` }).end();
    }
  });
  const response = await httpFetch(`${origin.url}/v1/old`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-secret" },
    body: '{"a":1}',
  });
  assert.equal(response.status, 200);
  assert.equal(await readText(response.body, 1024), "elsewhere");
  assert.deepEqual(
    origin.seen.map((s) => [s.method, s.url, s.body, s.headers.authorization]),
    [
      ["POST", "/v1/old", '{"a":1}', "Bearer sk-secret"],
      ["POST", "/v1/new", '{"a":1}', "Bearer sk-secret"],
    ],
  );
  assert.equal(other.seen[0]?.body, '{"a":1}');
  assert.equal(other.seen[0]?.headers.authorization, undefined, "no key sent to another origin");
});

test("a compressed body is decoded, as fetch would", async () => {
  const server = await serve((_, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
    res.end(gzipSync('{"ok":true}'));
  });
  const response = await httpFetch(`${server.url}/x`, { method: "GET", headers: {} });
  assert.equal(response.headers.get("Content-Type"), "application/json");
  assert.equal(await readText(response.body, 1024), '{"ok":true}');
});

test("a refused connection rejects with the system error as its cause", async () => {
  const server = await serve((_, res) => res.end());
  const url = server.url;
  await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
  await assert.rejects(
    httpFetch(url, { method: "GET", headers: {} }),
    (error: unknown) => (error as { cause?: { code?: string } }).cause?.code === "ECONNREFUSED",
  );
});

test("requests whose reader stops at the stream's terminator still share one connection", async () => {
  const server = await serve((_, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: [DONE]\n\n");
    // The end of the chunked body comes a moment after the terminator the reader stops at.
    setTimeout(() => res.end(), 20);
  });
  // The connection goes back to the pool once the rest of the body was read quietly; the next request
  // waits for that (a free socket, not a time: a loaded machine reads the rest late) and reuses it.
  let freed = 0;
  const onFree = () => {
    freed += 1;
  };
  globalAgent.on("free", onFree);
  try {
    for (let i = 0; i < 3; i++) {
      const response = await httpFetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: {},
        body: "{}",
      });
      for await (const chunk of response.body ?? []) {
        if (Buffer.from(chunk).includes("[DONE]")) break;
      }
      // A generous bound only so that a connection never freed fails the test instead of hanging it.
      const never = AbortSignal.timeout(30_000);
      while (freed <= i) await once(globalAgent, "free", { signal: never });
    }
  } finally {
    globalAgent.off("free", onFree);
  }
  assert.equal(freed, 3);
  assert.equal(server.connections(), 1);
});

test("with proxy settings requests go through the proxy, and NO_PROXY hosts go direct", async () => {
  const target = await serve((_seen, res) => res.end("through"));
  const proxy = await startForwardProxy();
  try {
    const proxied = createHttpFetch({ proxy: { HTTP_PROXY: proxy.url } });
    const answer = await proxied(`${target.url}/v1/models`, { method: "GET", headers: {} });
    assert.equal(await readText(answer.body, 1000), "through");
    assert.deepEqual(proxy.seen, [`GET ${target.url}/v1/models`]);

    const bypassing = createHttpFetch({ proxy: { HTTP_PROXY: proxy.url, NO_PROXY: "127.0.0.1" } });
    const direct = await bypassing(`${target.url}/v1/models`, { method: "GET", headers: {} });
    assert.equal(await readText(direct.body, 1000), "through");
    assert.equal(proxy.seen.length, 1, "a NO_PROXY host was sent through the proxy");
  } finally {
    await proxy.close();
  }
});

test("a proxy that refuses the connection is named by its host, never with its credentials", async () => {
  const proxied = createHttpFetch({ proxy: { HTTP_PROXY: "http://alice:pw-123@127.0.0.1:1" } });
  const error = await proxied("http://models.nex.test:8000/v1/models", {
    method: "GET",
    headers: {},
  }).then(
    () => null,
    (failure: unknown) => failure,
  );
  const described = describeFetchError(error);
  assert.match(described, /connection was refused \(ECONNREFUSED\), at the proxy 127\.0\.0\.1:1/);
  assert.ok(!described.includes("pw-123") && !described.includes("alice"));
  const direct = createHttpFetch({
    proxy: { HTTP_PROXY: "http://127.0.0.1:1", NO_PROXY: "localhost,127.0.0.1" },
  });
  const bypass = await direct("http://127.0.0.1:1/v1/models", { method: "GET", headers: {} }).then(
    () => null,
    (failure: unknown) => failure,
  );
  assert.doesNotMatch(describeFetchError(bypass), /proxy/, "a NO_PROXY host's failure is its own");
});

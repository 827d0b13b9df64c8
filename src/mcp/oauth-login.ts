import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { RemoteServerConfig } from "./config.ts";
import { oauthFile, StoredOAuthProvider } from "./oauth-store.ts";

/**
 * `nex mcp login NAME`: the OAuth sign-in to a remote server through the SDK's auth helpers. A
 * callback on 127.0.0.1 receives the code; the tokens are stored 0600 and never shown. Resolves with
 * the number of tools the signed-in server lists.
 */
export async function signIn(
  server: RemoteServerConfig & { name: string },
  oauthDir: string,
  options: { show: (url: URL) => void; signal: AbortSignal },
): Promise<number> {
  const callback = await startCallback(options.signal);
  try {
    const provider = new StoredOAuthProvider(
      oauthFile(oauthDir, server.name, server.url),
      callback.url,
      options.show,
    );
    const transport = remote(server, provider);
    const first = new Client({ name: "nex", version: "1" }, { capabilities: {} });
    let signedIn = false;
    try {
      await first.connect(transport);
      signedIn = true;
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
    }
    await first.close().catch(() => {});
    if (!signedIn) await transport.finishAuth(await callback.code);
    const client = new Client({ name: "nex", version: "1" }, { capabilities: {} });
    await client.connect(remote(server, provider));
    const tools = await client.listTools();
    await client.close();
    return tools.tools.length;
  } finally {
    callback.close();
  }
}

function remote(server: RemoteServerConfig, authProvider: StoredOAuthProvider) {
  const options = { authProvider, requestInit: { headers: server.headers } };
  return server.type === "sse"
    ? new SSEClientTransport(new URL(server.url), options)
    : new StreamableHTTPClientTransport(new URL(server.url), options);
}

/** A one-shot HTTP server on 127.0.0.1 that waits for the browser's redirect with the code. */
async function startCallback(signal: AbortSignal): Promise<{
  url: string;
  code: Promise<string>;
  close(): void;
}> {
  let settle: { resolve(code: string): void; reject(error: Error): void } | null = null;
  const code = new Promise<string>((resolve, reject) => {
    settle = { resolve, reject };
  });
  code.catch(() => {});
  const http = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    const given = url.searchParams.get("code");
    const error = url.searchParams.get("error");
    res.writeHead(given ? 200 : 400, { "content-type": "text/plain; charset=utf-8" });
    res.end(
      given
        ? "nex is signed in; you can close this tab.\n"
        : `Sign-in failed: ${error ?? "no code"}\n`,
    );
    if (given) settle?.resolve(given);
    else settle?.reject(new Error(`the sign-in was refused (${error ?? "no code came back"})`));
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const onAbort = () => settle?.reject(new Error("the sign-in was stopped"));
  signal.addEventListener("abort", onAbort, { once: true });
  const port = (http.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/callback`,
    code,
    close() {
      signal.removeEventListener("abort", onAbort);
      http.closeAllConnections();
      http.close();
    },
  };
}

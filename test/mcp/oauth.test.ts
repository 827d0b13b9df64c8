// OAuth for a remote MCP server, end to end with the SDK on both sides: the server is protected by the
// SDK's own auth router and bearer middleware; `nex mcp login` signs in (the test plays the browser),
// the tokens are stored 0600, and `nex run` then uses the server without ever showing a token.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { makeSandbox, runNex, startNex } from "../support/cli.ts";
import { runArgs, writeMcpConfig } from "../support/mcp-servers.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall, status } from "../support/stub-scripts.ts";

interface ExpressApp {
  listen(port: number, host: string): Server;
  use(handler: unknown): void;
  post(path: string, ...handlers: unknown[]): void;
}
type Express = (() => ExpressApp) & { json(): unknown };

interface Issued {
  access: Set<string>;
}

/** An MCP server behind OAuth: the SDK's mcpAuthRouter with an in-memory provider that approves at once. */
async function startOAuthServer(issued: Issued) {
  // express comes with the SDK's auth router, without its types.
  const expressModule = "express";
  const express = (await import(expressModule)).default as Express;
  const { mcpAuthRouter } = await import("@modelcontextprotocol/sdk/server/auth/router.js");
  const { requireBearerAuth } = await import(
    "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js"
  );
  const { McpServer } = await import("@modelcontextprotocol/sdk/server/mcp.js");
  const { StreamableHTTPServerTransport } = await import(
    "@modelcontextprotocol/sdk/server/streamableHttp.js"
  );
  const { randomUUID } = await import("node:crypto");
  const clients = new Map<string, { client_id: string; redirect_uris: string[] }>();
  const codes = new Map<string, { challenge: string; clientId: string }>();
  const provider = {
    clientsStore: {
      getClient: (id: string) => clients.get(id),
      registerClient: (client: { redirect_uris: string[] }) => {
        const full = {
          ...client,
          client_id: randomUUID(),
          client_id_issued_at: Math.floor(Date.now() / 1000),
        };
        clients.set(full.client_id, full);
        return full;
      },
    },
    async authorize(
      client: { client_id: string },
      params: { codeChallenge: string; redirectUri: string; state?: string },
      res: { redirect(url: string): void },
    ) {
      const code = randomUUID();
      codes.set(code, { challenge: params.codeChallenge, clientId: client.client_id });
      const target = new URL(params.redirectUri);
      target.searchParams.set("code", code);
      if (params.state) target.searchParams.set("state", params.state);
      res.redirect(target.href);
    },
    async challengeForAuthorizationCode(_client: unknown, code: string) {
      return codes.get(code)?.challenge ?? "";
    },
    async exchangeAuthorizationCode(_client: unknown, code: string) {
      if (!codes.delete(code)) throw new Error("unknown code");
      const token = `access-${randomUUID()}`;
      issued.access.add(token);
      return {
        access_token: token,
        token_type: "bearer",
        expires_in: 3600,
        refresh_token: `refresh-${randomUUID()}`,
      };
    },
    async exchangeRefreshToken() {
      throw new Error("not in this test");
    },
    async verifyAccessToken(token: string) {
      if (!issued.access.has(token)) throw new Error("invalid token");
      return { token, clientId: "x", scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
    },
  };
  const app = express();
  const listening = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => listening.once("listening", () => resolve()));
  const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
  app.use(mcpAuthRouter({ provider: provider as never, issuerUrl: new URL(base) }));
  app.post(
    "/mcp",
    express.json(),
    requireBearerAuth({ verifier: provider as never }),
    async (req: IncomingMessage & { body?: unknown }, res: ServerResponse) => {
      const server = new McpServer({ name: "guarded", version: "1.0.0" });
      server.registerTool("secret_count", { description: "Counts secrets" }, async (extra) => ({
        content: [{ type: "text", text: `42 secrets, signed in with ${extra.authInfo?.token}` }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  );
  return {
    url: `${base}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        listening.closeAllConnections();
        listening.close(() => resolve());
      }),
  };
}

test("nex mcp login signs in to an OAuth server (tokens 0600, never shown); nex run then uses it, and before it says to sign in", async () => {
  const issued: Issued = { access: new Set() };
  const remote = await startOAuthServer(issued);
  const box = makeSandbox();
  const config = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    // The sign-in is under test, not the start-up budget: a loaded machine may take more than 5 s.
    guarded: { type: "http", url: remote.url, startupTimeoutSeconds: 60 },
  });
  const handler = (answers: ReturnType<typeof openaiToolCall>[]) => {
    let turn = 0;
    return (request: LoggedRequest) =>
      request.path.endsWith("/chat/completions")
        ? (answers[turn++] ?? openaiText("done"))
        : status(404);
  };
  try {
    const before = await startStubEndpoint({ handler: handler([]) });
    const unsigned = await runNex(runArgs(before.url, box.dataDir, "--mcp-config", config, "go"), {
      cwd: box.workspace,
      env: box.env,
    });
    await before.close();
    assert.equal(unsigned.code, 0, unsigned.stderr);
    assert.match(
      unsigned.stderr,
      /guarded .*needs you to sign in \(OAuth\): run `nex mcp login guarded`/,
    );

    const login = startNex(
      ["mcp", "login", "guarded", "--mcp-config", config, "--data-dir", box.dataDir],
      {
        cwd: box.workspace,
        env: box.env,
      },
    );
    let printed = "";
    login.child.stdout?.on("data", (chunk: Buffer) => {
      printed += chunk.toString("utf8");
    });
    let address: string | null = null;
    const until = Date.now() + 60_000;
    while (!address && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      address = /https?:\/\/\S+\/authorize\S*/.exec(printed)?.[0] ?? null;
    }
    assert.ok(address, "nex mcp login printed no address to open");
    // The browser: follows the authorization server's redirect to nex's callback.
    const page = await fetch(address);
    assert.match(await page.text(), /signed in/);
    const done = await login.done;
    assert.equal(done.code, 0, done.stdout + done.stderr);
    assert.match(done.stdout, /Signed in to guarded: 1 tools/);

    const oauthDir = join(box.dataDir, "mcp-oauth");
    assert.equal(statSync(oauthDir).mode & 0o777, 0o700);
    const files = readdirSync(oauthDir);
    assert.equal(files.length, 1);
    assert.equal(statSync(join(oauthDir, files[0] ?? "")).mode & 0o777, 0o600);

    const after = await startStubEndpoint({
      handler: handler([openaiToolCall({ name: "mcp__guarded__secret_count", args: {} })]),
    });
    const signed = await runNex(
      runArgs(after.url, box.dataDir, "--mcp-config", config, "--yes", "--json", "go"),
      {
        cwd: box.workspace,
        env: box.env,
      },
    );
    const requests = after.requests.filter((r) => r.path.endsWith("/chat/completions"));
    await after.close();
    assert.equal(signed.code, 0, signed.stderr);
    assert.match(
      toolResults(requests[requests.length - 1])[0] ?? "",
      /42 secrets, signed in with \[redacted: mcp guarded OAuth token\]/,
    );
    const [token] = [...issued.access];
    assert.ok(token);
    for (const text of [
      done.stdout,
      done.stderr,
      signed.stdout,
      signed.stderr,
      JSON.stringify(requests.map((r) => r.body)),
    ])
      assert.ok(!text.includes(token), "a token was shown");
    for (const file of readdirSync(box.dataDir, { recursive: true, withFileTypes: true }))
      if (file.isFile() && !file.parentPath.endsWith("mcp-oauth"))
        assert.ok(
          !readFileSync(join(file.parentPath, file.name), "latin1").includes(token),
          `${file.name} holds the token`,
        );
  } finally {
    await remote.close();
  }
});

// `--no-mcp` (workgraph's `wg nex --no-mcp`): a run with none of the configured MCP servers, whose
// secrets are still kept out of every output.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { everythingServer, largeWindow, runArgs, writeMcpConfig } from "../support/mcp-servers.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, status } from "../support/stub-scripts.ts";

const TOKEN = "mcp-token-5b1e97c04d2a8f36";

test("--no-mcp starts none of the config's MCP servers, says so, and still keeps their secrets out of the output", async () => {
  const box = makeSandbox();
  const started = join(box.workspace, "..", "server-started");
  const configDir = join(box.workspace, "..", "config", "nex");
  mkdirSync(configDir, { recursive: true });
  // A server that would leave a mark if it ran, with a token in its environment.
  const marker = join(box.workspace, "..", "marker.mjs");
  writeFileSync(
    marker,
    `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(started)}, "ran");\n`,
  );
  writeMcpConfig(join(configDir, "config.json"), {
    everything: everythingServer({ TOKEN }),
    marker: { command: process.execPath, args: [marker] },
  });
  const stub = await startStubEndpoint({
    routes: largeWindow,
    handler: (request: LoggedRequest) =>
      request.path.endsWith("/chat/completions")
        ? openaiText(`the server's token is ${TOKEN}`)
        : status(404),
  });
  const result = await runNex(runArgs(stub.url, box.dataDir, "--no-mcp", "--json", "go"), {
    cwd: box.workspace,
    env: box.env,
  });
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const tools = JSON.stringify(
    (stub.requestsTo("/v1/chat/completions")[0]?.body as { tools?: unknown } | undefined)?.tools ??
      [],
  );
  assert.doesNotMatch(tools, /mcp__/);
  assert.equal(existsSync(started), false, "the server never ran");
  assert.match(
    result.stdout + result.stderr,
    /--no-mcp: the 2 MCP servers configured here were not started/,
  );
  assert.doesNotMatch(result.stdout + result.stderr, new RegExp(TOKEN));
});

test("--no-mcp with --mcp-config is refused: one starts none, the other names servers to start", async () => {
  const box = makeSandbox();
  const file = writeMcpConfig(join(box.workspace, "..", "mcp.json"), {
    everything: everythingServer(),
  });
  const result = await runNex(
    runArgs("http://127.0.0.1:9", box.dataDir, "--no-mcp", "--mcp-config", file, "go"),
    { cwd: box.workspace, env: box.env },
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(
    result.stderr,
    /--no-mcp starts no MCP server and --mcp-config names servers to start/,
  );
});

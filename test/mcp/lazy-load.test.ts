// The MCP SDK is loaded only when a server is configured: start-up of everyone else is unchanged.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { everythingServer, runArgs, writeMcpConfig } from "../support/mcp-servers.ts";
import { type LoggedRequest, startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, status } from "../support/stub-scripts.ts";

const HOOK = join(import.meta.dirname, "..", "support", "record-sdk-loads.mjs");

async function sdkLoads(withServer: boolean): Promise<string> {
  const box = makeSandbox();
  const loads = join(box.workspace, "..", "sdk-loads.txt");
  const extra = withServer
    ? [
        "--mcp-config",
        writeMcpConfig(join(box.workspace, "..", "mcp.json"), { everything: everythingServer() }),
      ]
    : [];
  const stub = await startStubEndpoint({
    handler: (request: LoggedRequest) =>
      request.path.endsWith("/chat/completions") ? openaiText("ok") : status(404),
  });
  try {
    const result = await runNex(runArgs(stub.url, box.dataDir, ...extra, "go"), {
      cwd: box.workspace,
      env: { ...box.env, NODE_OPTIONS: `--import=${HOOK}`, SDK_LOADS_FILE: loads },
    });
    assert.equal(result.code, 0, result.stderr);
    return existsSync(loads) ? readFileSync(loads, "utf8") : "";
  } finally {
    await stub.close();
  }
}

test("without MCP servers nex never loads the MCP SDK; with one it does", async () => {
  assert.equal(await sdkLoads(false), "");
  assert.match(await sdkLoads(true), /@modelcontextprotocol\/sdk/);
});

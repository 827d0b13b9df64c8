// MCP: what configured servers cost. `nex run` from spawn to its first model request with the
// reference servers (server-everything, server-filesystem) configured over stdio, beside the same run
// with none; and what their tool schemas add to every request, as a share of a 32k window.
import { join } from "node:path";
import { createTokenEstimator } from "../src/session/tokens.ts";
import { everythingServer, filesystemServer, writeMcpConfig } from "../test/support/mcp-servers.ts";
import { startStubEndpoint } from "../test/support/stub-endpoint.ts";
import { openaiText } from "../test/support/stub-scripts.ts";
import { endpointArgs, runNex, scratch } from "./nex-process.ts";
import { type Figure, median, say, spread } from "./report.ts";

const WINDOW = 32_768;

async function firstRequest(withServers: boolean): Promise<{ ms: number; tools: object[] }> {
  const dirs = scratch();
  let startedAt = 0;
  let model: number | null = null;
  const stub = await startStubEndpoint({
    handler: () => openaiText("ok"),
    onRequest: (request) => {
      if (request.path.endsWith("/chat/completions")) model ??= performance.now() - startedAt;
    },
  });
  const extra = withServers
    ? [
        "--mcp-config",
        writeMcpConfig(join(dirs.dataDir, "mcp.json"), {
          everything: everythingServer(),
          fs: filesystemServer(dirs.workspace),
        }),
      ]
    : [];
  const run = await runNex(["run", ...endpointArgs(stub.url, dirs.dataDir), ...extra, "say ok"], {
    cwd: dirs.workspace,
    probe: false,
    onSpawn: (t) => {
      startedAt = t;
    },
  });
  const body = stub.requests.find((r) => r.path.endsWith("/chat/completions"))?.body as
    | { tools?: object[] }
    | undefined;
  await stub.close();
  dirs.remove();
  if (run.code !== 0 || model === null)
    throw new Error(`nex run failed (exit ${run.code}): ${run.stderr.slice(-1000)}`);
  return { ms: model, tools: body?.tools ?? [] };
}

export async function benchMcp(options: { quick: boolean }): Promise<Figure[]> {
  say("\n## MCP servers");
  const runs = options.quick ? 3 : 6;
  const without: number[] = [];
  const withServers: number[] = [];
  let tools: { without: object[]; with: object[] } = { without: [], with: [] };
  for (let i = 0; i <= runs; i++) {
    const plain = await firstRequest(false);
    const served = await firstRequest(true);
    tools = { without: plain.tools, with: served.tools };
    if (i === 0) continue; // the first runs fill the compile cache
    without.push(plain.ms);
    withServers.push(served.ms);
  }
  const estimator = createTokenEstimator();
  const count = (list: object[]) => estimator.countRequest({ tools: list as never, messages: [] });
  const added = count(tools.with) - count(tools.without);
  const share = ((added / WINDOW) * 100).toFixed(1);
  say(`nex run → first model request, no MCP server: ${spread(without)}`);
  say(
    `nex run → first model request, server-everything + server-filesystem: ${spread(withServers)}`,
  );
  say(
    `their ${tools.with.length - tools.without.length} tool schemas: ${added} tokens in every request (${share}% of a 32k window)`,
  );
  return [
    {
      section: "mcp",
      name: "start-up with two stdio MCP servers",
      value: `${median(withServers).toFixed(0)} ms to the first model request (none: ${median(without).toFixed(0)} ms)`,
      goal: "≤ the slowest handshake (budget 5 s)",
      verdict: "info",
    },
    {
      section: "mcp",
      name: "their tool schemas",
      value: `${added} tokens (${share}% of 32k)`,
      goal: "figure",
      verdict: "info",
    },
  ];
}

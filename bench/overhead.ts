import { tmpdir } from "node:os";
import { join } from "node:path";
// The fixed prompt overhead: what the system prompt and the tool schemas cost in every request before
// the conversation says anything, in tokens (cl100k, the estimator nex uses) and as a share of a window.
import { buildSystemPrompt } from "../src/agent/system-prompt.ts";
import type { ToolHost, ToolSpec } from "../src/protocol/index.ts";
import type { NexConfig } from "../src/runtime/config.ts";
import { onDemandTools } from "../src/runtime/on-demand-tools.ts";
import { loadSubagents } from "../src/runtime/subagents/index.ts";
import { webTools } from "../src/runtime/web-tools.ts";
import { createTokenEstimator } from "../src/session/tokens.ts";
import { createToolHost } from "../src/tools/index.ts";
import { type Figure, say, verdict } from "./report.ts";

// The tool platform's goal: with every tool enabled, at most 8% of a 32k window.
const GOAL_SHARE = 0.08;
const WINDOW = 32_768;

export async function benchOverhead(): Promise<Figure[]> {
  say("\n## Fixed prompt overhead");
  const estimator = createTokenEstimator();
  const system = buildSystemPrompt({
    workspace: "/home/user/project",
    agentsMd: null,
    date: "2026-01-01",
  });
  // Every tool a session has: the built-in ones and those the runtime adds (subagents, web), with
  // the rarely used ones (web, jobs, summarize, reader, map) listed in load_tools rather than sent, as on a 32k window.
  const web = webTools({
    config: { web: {}, proxy: null } as unknown as NexConfig,
    env: {},
    summarize: async () => "",
    window: () => WINDOW,
  });
  const subagents = await loadSubagents(tmpdir(), {});
  const session = createToolHost({
    workspace: tmpdir(),
    checkpointDir: join(tmpdir(), "nex-bench-unused"),
    mode: "ask",
    extraTools: [...subagents.tools, ...web],
  });
  const tools = onDemandTools(session, new Set(session.deferredTools()), () => WINDOW).specs();
  const systemTokens = estimator.countRequest({ system, messages: [] });
  const toolTokens = estimator.countRequest({ tools, messages: [] });
  const total = estimator.countRequest({ system, tools, messages: [] });
  const share = total / WINDOW;
  say(`system prompt:          ${systemTokens} tokens`);
  say(`tool schemas (${tools.length}):      ${toolTokens} tokens`);
  say(`together:               ${total} tokens, ${(share * 100).toFixed(1)}% of a 32k window`);
  // Thirty more tools, as MCP servers, web tools and subagents bring them, each marked deferred.
  const extra = extraSpecs(30);
  const all = [...tools, ...extra];
  const host = onDemandTools(
    { specs: () => all } as unknown as ToolHost,
    new Set(extra.map((spec) => spec.name)),
    () => WINDOW,
  );
  const eager = estimator.countRequest({ system, tools: all, messages: [] });
  const onDemand = estimator.countRequest({ system, tools: host.specs(), messages: [] });
  const onDemandShare = onDemand / WINDOW;
  say(
    `with ${extra.length} more tools, all sent:     ${eager} tokens, ${((eager / WINDOW) * 100).toFixed(1)}%`,
  );
  say(
    `with ${extra.length} more tools, deferred: ${onDemand} tokens, ${(onDemandShare * 100).toFixed(1)}% (load_tools lists them)`,
  );
  return [
    {
      section: "overhead",
      name: `+ ${extra.length} deferred tools (32k window)`,
      value: `${onDemand} tokens (${(onDemandShare * 100).toFixed(1)}% of 32k; ${eager} if all were sent)`,
      goal: `≤ ${GOAL_SHARE * 100}% of 32k (${Math.floor(WINDOW * GOAL_SHARE)} tokens)`,
      verdict: verdict(onDemandShare <= GOAL_SHARE),
    },
    {
      section: "overhead",
      name: "system prompt + tool schemas",
      value: `${total} tokens (${(share * 100).toFixed(1)}% of 32k)`,
      goal: `≤ ${GOAL_SHARE * 100}% of 32k (${Math.floor(WINDOW * GOAL_SHARE)} tokens)`,
      verdict: verdict(share <= GOAL_SHARE),
    },
  ];
}

/** Tools shaped like an MCP server's: a sentence or two of description, a few typed arguments. */
function extraSpecs(count: number): ToolSpec[] {
  return Array.from({ length: count }, (_, i) => ({
    name: `server_tool_${i}`,
    description: `Searches the records of service ${i} by a query and returns the matching entries, newest first. Use it when the user asks about service ${i}.`,
    parameters: {
      type: "object",
      properties: {
        query: { type: "string", description: "What to look for." },
        limit: { type: "integer", minimum: 1, maximum: 100, description: "At most this many." },
        since: { type: "string", description: "Only entries after this date (YYYY-MM-DD)." },
      },
      required: ["query"],
    },
  }));
}

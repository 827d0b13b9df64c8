// The fixed prompt overhead: what the system prompt and the tool schemas cost in every request before
// the conversation says anything, in tokens (cl100k, the estimator nex uses) and as a share of a window.
import { buildSystemPrompt } from "../src/agent/system-prompt.ts";
import type { NexConfig } from "../src/runtime/config.ts";
import { webTools } from "../src/runtime/web-tools.ts";
import { createTokenEstimator } from "../src/session/tokens.ts";
import { toolSpecs } from "../src/tools/index.ts";
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
  // The web tools are added by the runtime (unless `"web": {"enabled": false}`): they count too.
  const web = webTools({
    config: { web: {}, proxy: null } as unknown as NexConfig,
    env: {},
    summarize: async () => "",
    window: () => WINDOW,
  }).map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.jsonSchema,
  }));
  const tools = [...toolSpecs(), ...web];
  const systemTokens = estimator.countRequest({ system, messages: [] });
  const toolTokens = estimator.countRequest({ tools, messages: [] });
  const total = estimator.countRequest({ system, tools, messages: [] });
  const share = total / WINDOW;
  say(`system prompt:          ${systemTokens} tokens`);
  say(`tool schemas (${tools.length}):      ${toolTokens} tokens`);
  say(`together:               ${total} tokens, ${(share * 100).toFixed(1)}% of a 32k window`);
  return [
    {
      section: "overhead",
      name: "system prompt + tool schemas",
      value: `${total} tokens (${(share * 100).toFixed(1)}% of 32k)`,
      goal: `≤ ${GOAL_SHARE * 100}% of 32k (${Math.floor(WINDOW * GOAL_SHARE)} tokens)`,
      verdict: verdict(share <= GOAL_SHARE),
    },
  ];
}

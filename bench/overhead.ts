// The fixed prompt overhead: what the system prompt and the tool schemas cost in every request before
// the conversation says anything, in tokens (cl100k, the estimator nex uses) and as a share of a window.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSystemPrompt } from "../src/agent/system-prompt.ts";
import type { ToolHost, ToolSpec } from "../src/protocol/index.ts";
import { onDemandTools } from "../src/runtime/assembly/on-demand-tools.ts";
import type { NexConfig } from "../src/runtime/config/config.ts";
import { loadExtensions } from "../src/runtime/extensions/index.ts";
import { loadSubagents } from "../src/runtime/subagents/index.ts";
import { webTools } from "../src/runtime/web/web-tools.ts";
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
  // the rarely used ones (jobs, subagents, web) listed by load_tools rather than sent, as on a 32k
  // window; then thirty more, as MCP servers bring them (deferred like theirs).
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
  const sent = (extra: ToolSpec[]) => {
    const all = [...session.specs(), ...extra];
    const deferred = new Set([...session.deferredTools(), ...extra.map((spec) => spec.name)]);
    const host = onDemandTools({ specs: () => all } as unknown as ToolHost, deferred, () => WINDOW);
    return { all, specs: host.specs() };
  };
  const tools = sent([]).specs;
  const systemTokens = estimator.countRequest({ system, messages: [] });
  const toolTokens = estimator.countRequest({ tools, messages: [] });
  const total = estimator.countRequest({ system, tools, messages: [] });
  const share = total / WINDOW;
  say(`system prompt:          ${systemTokens} tokens`);
  say(`tool schemas (${tools.length}):      ${toolTokens} tokens`);
  say(`together:               ${total} tokens, ${(share * 100).toFixed(1)}% of a 32k window`);
  const extra = sent(extraSpecs(30));
  const eager = estimator.countRequest({ system, tools: extra.all, messages: [] });
  const onDemand = estimator.countRequest({ system, tools: extra.specs, messages: [] });
  const onDemandShare = onDemand / WINDOW;
  say(`with 30 more tools, all sent:     ${eager} tokens, ${((eager / WINDOW) * 100).toFixed(1)}%`);
  say(
    `with 30 more tools, deferred: ${onDemand} tokens, ${(onDemandShare * 100).toFixed(1)}% (load_tools lists them)`,
  );
  // Ten skills and ten command files installed (issue 18): only the skills' names and descriptions
  // and the `skill` tool reach the prompt; commands cost nothing.
  const extended = await withExtensions(async (workspace) => {
    const extensions = await loadExtensions(workspace, { HOME: workspace });
    const withSkills = buildSystemPrompt({
      workspace: "/home/user/project",
      skills: extensions.skillsSection,
      agentsMd: null,
      date: "2026-01-01",
    });
    const skillTools = extensions.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.jsonSchema,
    }));
    return {
      tokens: estimator.countRequest({
        system: withSkills,
        tools: [...tools, ...skillTools],
        messages: [],
      }),
      found: `${extensions.skills.length} skills, ${extensions.commands.length} commands`,
    };
  });
  const extendedShare = extended.tokens / WINDOW;
  say(
    `with ${extended.found}: ${extended.tokens} tokens, ${(extendedShare * 100).toFixed(1)}% of a 32k window`,
  );
  const goal = `≤ ${GOAL_SHARE * 100}% of 32k (${Math.floor(WINDOW * GOAL_SHARE)} tokens)`;
  return [
    {
      section: "overhead",
      name: "system prompt + tool schemas",
      value: `${total} tokens (${(share * 100).toFixed(1)}% of 32k)`,
      goal,
      verdict: verdict(share <= GOAL_SHARE),
    },
    {
      section: "overhead",
      name: "+ 30 deferred tools (32k window)",
      value: `${onDemand} tokens (${(onDemandShare * 100).toFixed(1)}% of 32k; ${eager} if all were sent)`,
      goal,
      verdict: verdict(onDemandShare <= GOAL_SHARE),
    },
    {
      section: "overhead",
      name: "the same, 10 skills + 10 commands",
      value: `${extended.tokens} tokens (${(extendedShare * 100).toFixed(1)}% of 32k)`,
      goal,
      verdict: verdict(extendedShare <= GOAL_SHARE),
    },
  ];
}

// Ten skills and ten commands with descriptions of a typical length, in a temporary workspace.
async function withExtensions<T>(measure: (workspace: string) => Promise<T>): Promise<T> {
  const workspace = mkdtempSync(join(tmpdir(), "nex-bench-extensions-"));
  try {
    for (let i = 1; i <= 10; i++) {
      const skill = join(workspace, ".nex", "skills", `skill-${i}`);
      mkdirSync(skill, { recursive: true });
      writeFileSync(
        join(skill, "SKILL.md"),
        `---\nname: skill-${i}\ndescription: Use when the task involves area ${i} of the project, its build, its tests and its release steps.\n---\n${"Step by step instructions.\n".repeat(50)}`,
      );
      const commands = join(workspace, ".claude", "commands");
      mkdirSync(commands, { recursive: true });
      writeFileSync(
        join(commands, `command-${i}.md`),
        `---\ndescription: Review area ${i} for errors and missing tests\nargument-hint: <file>\n---\nReview $1 carefully.\n`,
      );
    }
    return await measure(workspace);
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
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

// The fixed prompt overhead: what the system prompt and the tool schemas cost in every request before
// the conversation says anything, in tokens (cl100k, the estimator nex uses) and as a share of a window.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSystemPrompt } from "../src/agent/system-prompt.ts";
import type { NexConfig } from "../src/runtime/config.ts";
import { loadExtensions } from "../src/runtime/extensions/index.ts";
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
  // The same with ten skills and ten command files installed (issue 18): only the skills' names and
  // descriptions and the `skill` tool reach the prompt; commands cost nothing.
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
  return [
    {
      section: "overhead",
      name: "system prompt + tool schemas",
      value: `${total} tokens (${(share * 100).toFixed(1)}% of 32k)`,
      goal: `≤ ${GOAL_SHARE * 100}% of 32k (${Math.floor(WINDOW * GOAL_SHARE)} tokens)`,
      verdict: verdict(share <= GOAL_SHARE),
    },
    {
      section: "overhead",
      name: "the same, 10 skills + 10 commands",
      value: `${extended.tokens} tokens (${(extendedShare * 100).toFixed(1)}% of 32k)`,
      goal: `≤ ${GOAL_SHARE * 100}% of 32k (${Math.floor(WINDOW * GOAL_SHARE)} tokens)`,
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

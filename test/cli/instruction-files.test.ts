// The instructions a session's model gets: the user's global AGENTS.md, the project's AGENTS.md (or
// CLAUDE.md where there is none) and nested ones, closest winning; each read through the real nex.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";

async function systemPrompt(box: ReturnType<typeof makeSandbox>): Promise<{
  system: string;
  stderr: string;
}> {
  const stub = await startStubEndpoint({ scripts: [openaiText("ok")] });
  try {
    const result = await runNex(
      ["run", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "hi"],
      { cwd: box.workspace, env: { ...box.env, OPENAI_API_KEY: "sk-test" } },
    );
    assert.equal(result.code, 0, result.stderr);
    const body = stub.requestsTo("/v1/chat/completions")[0]?.body as {
      messages: Array<{ role: string; content: string }>;
    };
    return {
      system: body.messages.find((m) => m.role === "system")?.content ?? "",
      stderr: result.stderr,
    };
  } finally {
    await stub.close();
  }
}

test("a project with only CLAUDE.md gets it; with both, AGENTS.md wins and CLAUDE.md is not sent", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "CLAUDE.md"), "Use tabs (from CLAUDE.md).\n");
  const claudeOnly = await systemPrompt(box);
  assert.match(
    claudeOnly.system,
    /From CLAUDE\.md \(this project\):\nUse tabs \(from CLAUDE\.md\)\./,
  );

  writeFileSync(join(box.workspace, "AGENTS.md"), "Use spaces (from AGENTS.md).\n");
  const both = await systemPrompt(box);
  assert.match(
    both.system,
    /Project instructions from AGENTS\.md:\nUse spaces \(from AGENTS\.md\)\./,
  );
  assert.doesNotMatch(both.system, /from CLAUDE\.md/);
});

test("the user's global AGENTS.md comes first, then the project's, then nested ones that win in their folders", async () => {
  const box = makeSandbox();
  const configDir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, "AGENTS.md"), "Answer in English (global).\n");
  writeFileSync(join(box.workspace, "AGENTS.md"), "Run npm test (root).\n");
  mkdirSync(join(box.workspace, "services", "api"), { recursive: true });
  writeFileSync(join(box.workspace, "services", "api", "AGENTS.md"), "Run go test (api).\n");
  mkdirSync(join(box.workspace, "web"));
  writeFileSync(join(box.workspace, "web", "CLAUDE.md"), "Run pnpm test (web).\n");
  // Not instructions of this project: dependencies and hidden folders.
  mkdirSync(join(box.workspace, "node_modules", "dep"), { recursive: true });
  writeFileSync(join(box.workspace, "node_modules", "dep", "AGENTS.md"), "DEPENDENCY RULES\n");
  mkdirSync(join(box.workspace, ".git"));
  writeFileSync(join(box.workspace, ".git", "AGENTS.md"), "HIDDEN RULES\n");

  const { system } = await systemPrompt(box);
  const order = ["(global)", "(root)", "(web)", "(api)"].map((mark) => system.indexOf(mark));
  assert.ok(
    order.every((at) => at > 0),
    system,
  );
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
    "global, root, then shallow to deep",
  );
  assert.match(
    system,
    /From services\/api\/AGENTS\.md \(for files under services\/api\/; there it wins over the instructions above\):\nRun go test \(api\)\./,
  );
  assert.match(system, /From web\/CLAUDE\.md \(for files under web\/;/);
  assert.doesNotMatch(system, /DEPENDENCY RULES|HIDDEN RULES/);
});

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type DemoScenario, SCENARIOS } from "../demo/scenarios.ts";
import { startStubEndpoint } from "../demo/scripted-endpoint.ts";
import { json } from "../demo/scripts.ts";
import { EXIT } from "../headless/exit-code.ts";
import { createTextRenderer } from "../headless/text-renderer.ts";
import type { TerminalEvent } from "../protocol/index.ts";
import { openSession } from "../runtime/assembly/index.ts";
import type { CommonOptions } from "./args.ts";

const out = (text: string) => process.stdout.write(text);

/**
 * `nex demo`: runs nex (the real client, loop and tools) against a scripted endpoint on loopback
 * that misbehaves the way the seed reports describe, in throw-away workspaces. Exits 0 only when
 * nex behaved as promised in every scenario.
 */
export async function runDemo(only: string | null, options: CommonOptions): Promise<number> {
  const chosen = only ? SCENARIOS.filter((s) => s.name === only) : SCENARIOS;
  if (chosen.length === 0) {
    process.stderr.write(
      `nex: no demo scenario "${only}". Scenarios: ${SCENARIOS.map((s) => s.name).join(", ")}.\n`,
    );
    return EXIT.usage;
  }
  out(
    "nex demo: a scripted endpoint on 127.0.0.1 plays a misbehaving model; nex is real. " +
      "Actions are approved automatically; each scenario runs in a temporary workspace.\n",
  );
  const failures: string[] = [];
  for (const [index, scenario] of chosen.entries()) {
    out(
      `\n── ${index + 1}/${chosen.length} ${scenario.name}: ${scenario.title}\n   nex ${scenario.expect}\n\n`,
    );
    const problem = await runScenario(scenario, options);
    if (problem) failures.push(`${scenario.name}: ${problem}`);
    out(problem ? `\n   ✗ NOT AS PROMISED: ${problem}\n` : "\n   ✓ as promised\n");
  }
  out(
    failures.length === 0
      ? `\nAll ${chosen.length} scenarios behaved as promised. Point nex at your own endpoint with \`nex run --base-url URL --model NAME "task"\`.\n`
      : `\n${failures.length} scenario(s) did not behave as promised:\n${failures.join("\n")}\nPlease report this.\n`,
  );
  return failures.length === 0 ? EXIT.done : EXIT.failure;
}

async function runScenario(scenario: DemoScenario, options: CommonOptions): Promise<string | null> {
  const base = mkdtempSync(join(tmpdir(), "nex-demo-"));
  const workspace = join(base, "workspace");
  mkdirSync(workspace);
  for (const [path, content] of Object.entries(scenario.files)) {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  }
  const endpoint = await startStubEndpoint({
    scripts: scenario.scripts,
    routes: {
      "GET /v1/models": json({
        object: "list",
        data: [{ id: "demo-model", object: "model", max_model_len: 32768 }],
      }),
    },
    ...(scenario.always ? { handler: () => scenario.always ?? { type: "destroy" } } : {}),
  });
  try {
    const { session, events } = await openSession(
      {
        model: "demo-model",
        baseUrl: `${endpoint.url}/v1`,
        cwd: workspace,
        dataDir: join(base, "data"),
        permissionMode: "approve_all",
        maxTurns: options.maxTurns,
      },
      { HOME: base, PATH: process.env.PATH },
      workspace,
      { resume: null, approvals: "refuse" },
    );
    const render = createTextRenderer(session.info, { out, err: out });
    for (const event of events) render(event);
    session.subscribe(render);
    let terminal: TerminalEvent;
    try {
      terminal = await session.submit(scenario.task);
    } finally {
      await session.close();
    }
    const requestTimes = endpoint.requestsTo("/v1/chat/completions").map((r) => r.receivedAt);
    out(`\n   The endpoint received ${requestTimes.length} model request(s).`);
    const problem = scenario.check({
      terminal,
      requestTimes,
      readFile: (path) =>
        existsSync(join(workspace, path)) ? readFileSync(join(workspace, path), "utf8") : null,
    });
    out(` Workspace: ${describeFiles(workspace, scenario)}\n`);
    return problem;
  } finally {
    await endpoint.close();
    rmSync(base, { recursive: true, force: true });
  }
}

function describeFiles(workspace: string, scenario: DemoScenario): string {
  const names = new Set([
    ...Object.keys(scenario.files),
    "forecast.txt",
    "NOTES.md",
    "settings.py",
  ]);
  const present = [...names]
    .filter((name) => existsSync(join(workspace, name)))
    .map((name) => {
      const text = readFileSync(join(workspace, name), "utf8");
      const lines = text.length === 0 ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
      return `${name} (${Buffer.byteLength(text)} bytes, ${lines} lines)`;
    });
  return present.length > 0 ? present.join(", ") : "no files";
}

// Runs one fault scenario: a fresh sandbox, the stub endpoint in this process, the real `nex` as a child.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeSandbox, type NexResult, type Sandbox, startNex } from "../support/cli.ts";
import { type StubHandler, startStubEndpoint } from "../support/stub-endpoint.ts";
import type { FaultOutcome, FaultScenario, Wire } from "./scenario.ts";

/** The model name every scenario uses; configs that set limits name it. */
export const MODEL = { openai: "stub-model", anthropic: "claude-sonnet-4-5" } as const;

/** A scenario's verdict: safe when every check held. */
export interface FaultResult {
  scenario: FaultScenario;
  outcome: FaultOutcome;
  /** What went wrong, one entry per failed check; empty when safe. */
  problems: string[];
}

const modelPath: Record<Wire, string> = {
  openai: "/v1/chat/completions",
  anthropic: "/v1/messages",
};

/** Runs one scenario to its end and judges it; `signal` (a test's timeout) stops a nex that hangs. */
export async function runScenario(
  scenario: FaultScenario,
  signal?: AbortSignal,
): Promise<FaultResult> {
  const box = makeSandbox({ visible: scenario.visible ?? false });
  for (const [path, content] of Object.entries(scenario.files ?? {})) {
    const abs = join(box.workspace, path);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
  await scenario.setup?.(box);
  const { handler: answer, always } = scenario;
  // The handler's index counts model requests only (queued scripts included): discovery probes
  // (`/v1/models`, `/props`) do not shift it.
  let modelRequests = 0;
  const handler: StubHandler | undefined = answer
    ? (request) => answer(request, modelRequests - 1, box)
    : always
      ? () => always
      : undefined;
  const stub = await startStubEndpoint({
    scripts: scenario.scripts ?? [],
    onRequest: (request) => {
      if (request.path === modelPath[scenario.wire]) modelRequests++;
    },
    ...(handler ? { handler } : {}),
  });
  const started = Date.now();
  let result: NexResult;
  const stop = () => nex.child.kill("SIGKILL");
  const nex = startNex(argsFor(scenario, stub.url, box), {
    cwd: box.workspace,
    env: { ...box.env, ...(scenario.env ?? {}) },
  });
  signal?.addEventListener("abort", stop);
  try {
    result = await nex.done;
  } finally {
    signal?.removeEventListener("abort", stop);
    await stub.close();
  }
  const outcome: FaultOutcome = {
    code: result.code,
    stdout: result.stdout,
    stderr: result.stderr,
    requests: stub.requestsTo(modelPath[scenario.wire]),
    box,
    elapsedMs: Date.now() - started,
    wire: scenario.wire,
  };
  const problems: string[] = [];
  for (const check of scenario.checks) {
    const problem = check(outcome);
    if (problem) problems.push(problem);
  }
  return { scenario, outcome, problems };
}

function argsFor(scenario: FaultScenario, url: string, box: Sandbox): string[] {
  const wire =
    scenario.wire === "anthropic"
      ? ["--provider", "anthropic", "--base-url", url]
      : ["--base-url", `${url}/v1`];
  const task = scenario.task ?? "do the task";
  const permission = scenario.permission ?? ["--yes"];
  if (scenario.command === "resume") return ["resume", "--last", ...permission, ...wire, task];
  return [
    "run",
    ...permission,
    "--model",
    MODEL[scenario.wire],
    ...wire,
    "--data-dir",
    box.dataDir,
    task,
  ];
}

/** Runs scenarios with at most `concurrency` at a time, in their order. */
export async function runAll(
  scenarios: FaultScenario[],
  concurrency = 4,
  onResult?: (result: FaultResult) => void,
): Promise<FaultResult[]> {
  const results: FaultResult[] = new Array(scenarios.length);
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length) {
      const index = next++;
      const result = await runScenario(scenarios[index] as FaultScenario);
      results[index] = result;
      onResult?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, scenarios.length) }, worker));
  return results;
}

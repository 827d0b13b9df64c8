// Runs tasks with the real nex (`nex run --json --yes`) against an OpenAI-compatible endpoint, each
// in a fresh copy of its repository, and records what happened. Results are written after every
// task, so a long run that is stopped keeps what it finished.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { checkTask } from "./checks.ts";
import { type RunRecord, readRecord } from "./record.ts";
import { renderMarkdown } from "./report.ts";
import { type IdleOptions, type IdleWait, waitForIdleServer } from "./server-idle.ts";
import type { Task } from "./tasks.ts";
import { prepareWorkspace } from "./workspace.ts";

export const nexRoot = resolve(import.meta.dirname, "..", "..");

export interface SuiteOptions {
  baseUrl: string;
  model: string;
  /** The environment variable holding the endpoint's key; none is sent without it. */
  apiKeyEnv?: string;
  tasks: Task[];
  outDir: string;
  /** Free text naming this run (a variant: "fewer tools", ...). */
  label?: string;
  maxTurns?: number;
  /** nex's own `--max-time` per task (e.g. "10m"). */
  maxTime?: string;
  /** More arguments for `nex run` (a variant's `--tools`, `--append-system-prompt`...). */
  nexArgs?: string[];
  /** The nex checkout to run (default: this one); a fixed copy keeps a long run on one version. */
  nexDir?: string;
  /** Keep each task's workspace for inspection. */
  keep?: boolean;
  /** Called as each task ends. */
  onTask?: (result: TaskResult) => void;
  /** How the runner waits for the server to finish earlier work before each task. */
  idle?: IdleOptions;
}

export interface TaskResult extends RunRecord {
  id: string;
  kind: string;
  solved: boolean;
  /** Why it does not count as solved; empty when solved. */
  failure: string;
  changed: string[];
  wallMs: number;
  /** Before the task: how long the server was still busy with earlier work (not in `wallMs`). */
  serverWait: IdleWait;
  exitCode: number | null;
  stderrTail: string;
  workspace: string | null;
}

export interface SuiteRecord {
  label: string;
  model: string;
  baseUrl: string;
  startedAt: string;
  nexArgs: string[];
  /** The commit of the nex that ran, when it is a git checkout or says so in COMMIT. */
  nexCommit: string | null;
  server: unknown;
  results: TaskResult[];
}

export async function runSuite(options: SuiteOptions): Promise<SuiteRecord> {
  mkdirSync(options.outDir, { recursive: true });
  const suite: SuiteRecord = {
    label: options.label ?? "default",
    model: options.model,
    baseUrl: withoutCredentials(options.baseUrl),
    startedAt: new Date().toISOString(),
    nexArgs: options.nexArgs ?? [],
    nexCommit: commitOf(options.nexDir ?? nexRoot),
    server: await describeServer(options.baseUrl),
    results: [],
  };
  for (const task of options.tasks) {
    const result = await runTask(task, options);
    suite.results.push(result);
    writeSuite(options.outDir, suite);
    options.onTask?.(result);
  }
  writeSuite(options.outDir, suite);
  return suite;
}

function writeSuite(outDir: string, suite: SuiteRecord): void {
  writeFileSync(join(outDir, "results.json"), `${JSON.stringify(suite, null, 2)}\n`);
  writeFileSync(join(outDir, "results.md"), renderMarkdown(suite));
}

async function runTask(task: Task, options: SuiteOptions): Promise<TaskResult> {
  const serverWait = await waitForIdleServer(options.baseUrl, options.idle);
  const workspace = prepareWorkspace(task);
  const args = [
    join(options.nexDir ?? nexRoot, "bin", "nex.js"),
    "run",
    "--json",
    "--yes",
    "--base-url",
    options.baseUrl,
    "--model",
    options.model,
    "--cwd",
    workspace.dir,
    "--data-dir",
    workspace.dataDir,
    "--max-turns",
    String(options.maxTurns ?? 30),
    "--max-time",
    options.maxTime ?? "10m",
    ...(options.nexArgs ?? []),
    task.prompt,
  ];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: join(workspace.dataDir, "config"),
  };
  delete env.OPENAI_API_KEY;
  delete env.OPENAI_BASE_URL;
  delete env.NEX_MODEL;
  if (options.apiKeyEnv) {
    const key = process.env[options.apiKeyEnv];
    if (!key) throw new Error(`--api-key-env ${options.apiKeyEnv}: that variable is not set`);
    env.OPENAI_API_KEY = key;
  }
  const started = performance.now();
  const run = await runChild(
    process.execPath,
    args,
    workspace.dir,
    env,
    deadlineMs(options.maxTime),
  );
  const wallMs = Math.round(performance.now() - started);
  writeFileSync(join(options.outDir, `${task.id}.events.jsonl`), run.stdout);
  writeFileSync(join(options.outDir, `${task.id}.stderr.txt`), run.stderr);
  const record = readRecord(run.stdout);
  if (record.requests === 0 && /unreachable/.test(run.stderr))
    throw new Error(
      `the endpoint is unreachable; the run stops here (${task.id}): ${run.stderr.trim()}`,
    );
  const checked = checkTask(task, workspace, record.answer);
  // A run that did not end its task (an error, the time budget) has not solved it, even when the
  // files happen to pass (changing nothing is right for some tasks).
  const outcome =
    record.end === "done" || !checked.solved
      ? checked
      : { ...checked, solved: false, failure: "nex did not finish the task" };
  const kept = options.keep ? workspace.keep() : null;
  if (!options.keep) workspace.remove();
  return {
    id: task.id,
    kind: task.kind,
    ...record,
    solved: outcome.solved,
    failure: outcome.failure,
    changed: outcome.changed,
    wallMs,
    serverWait,
    exitCode: run.code,
    stderrTail: run.stderr.trim().split("\n").slice(-5).join("\n"),
    workspace: kept,
  };
}

/** nex stops itself at --max-time; this is the backstop for a nex that does not. */
function deadlineMs(maxTime: string | undefined): number {
  const match = /^(\d+)(s|m|h)?$/.exec(maxTime ?? "10m");
  const unit = { s: 1_000, m: 60_000, h: 3_600_000 }[(match?.[2] ?? "s") as "s" | "m" | "h"];
  return (match ? Number(match[1]) * unit : 600_000) + 120_000;
}

function runChild(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      stderr += `\n[eval] nex still running after ${timeoutMs} ms: stopped\n`;
      if (child.pid) process.kill(-child.pid, "SIGTERM");
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

function commitOf(dir: string): string | null {
  if (existsSync(join(dir, "COMMIT"))) return readFileSync(join(dir, "COMMIT"), "utf8").trim();
  const result = spawnSync("git", ["-C", dir, "describe", "--always", "--dirty"], {
    encoding: "utf8",
  });
  return result.status === 0 ? result.stdout.trim() : null;
}

/** What the server says about itself (llama-server's /props, the model list), best effort. */
async function describeServer(baseUrl: string): Promise<unknown> {
  const root = baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
  const get = async (url: string) => {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      return response.ok ? await response.json() : null;
    } catch {
      return null;
    }
  };
  const props = (await get(`${root}/props`)) as Record<string, unknown> | null;
  const models = await get(`${root}/v1/models`);
  const settings = props?.default_generation_settings as Record<string, unknown> | undefined;
  return {
    build: props?.build_info ?? null,
    modelPath: props?.model_path ?? null,
    contextWindow: settings?.n_ctx ?? props?.n_ctx ?? null,
    models,
  };
}

function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = "";
    parsed.password = "";
    parsed.search = "";
    return parsed.toString();
  } catch {
    return "(not a URL)";
  }
}

import { runBash } from "../shell/index.ts";
import type { CommandSandbox } from "./policy.ts";
import { createProcessCap } from "./process-limit.ts";

/** What starting one empty command under the sandbox showed. */
export type SandboxProbe =
  | { type: "off" }
  | { type: "unavailable"; reason: string; fix: string }
  | { type: "works"; backend: string; startMs: number; processLimit: string }
  | { type: "broken"; error: string };

/** Starts `true` under the sandbox once: the proof that commands can run confined here, and its cost. */
export async function probeSandbox(
  sandbox: CommandSandbox,
  workspace: string,
  env: Record<string, string | undefined>,
): Promise<SandboxProbe> {
  const state = sandbox.state();
  if (state.type === "off") return { type: "off" };
  if (state.type === "unavailable") return { ...state };
  const started = performance.now();
  const launch = await sandbox.launch("true", workspace);
  const result = await runBash({
    command: "true",
    cwd: workspace,
    env,
    timeoutMs: 10_000,
    killGraceMs: 500,
    outputCap: 4096,
    signal: AbortSignal.timeout(15_000),
    launch,
  });
  launch.release();
  if (!result.started || result.exitCode !== 0) {
    return { type: "broken", error: result.output.trim().slice(0, 300) || "no output" };
  }
  const cap = createProcessCap(16);
  cap?.release();
  const processLimit = cap
    ? "processes capped by a pids cgroup"
    : process.getuid?.() === 0
      ? "no process cap (root is exempt from ulimit -u and no pids cgroup is writable): a fork bomb is ended only by the timeout"
      : "processes capped by ulimit -u";
  return {
    type: "works",
    backend: state.backend,
    startMs: performance.now() - started,
    processLimit,
  };
}

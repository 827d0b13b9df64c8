// Runs the real nex command as a child process, the way a user or a script does.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { scratchDir } from "./scratch-dir.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");

/** A temporary workspace and data directory for one test. */
export interface Sandbox {
  workspace: string;
  dataDir: string;
  /** Environment for the child: no inherited keys or endpoints, XDG dirs inside the sandbox. */
  env: Record<string, string>;
}

// The OS sandbox gives each command a private /tmp and /var/tmp, which hide everything a test keeps
// under them; tests of what commands can reach outside the workspace run from a folder outside both:
// the checkout's, or, when the checkout itself is under a temp dir (a CI clone), the home's cache.
const hiddenByTheSandbox = (path: string) =>
  ["/tmp", "/var/tmp", realpathSync(tmpdir())].some(
    (dir) => path === dir || path.startsWith(`${dir}/`),
  );
const checkout = realpathSync(resolve(import.meta.dirname, "..", ".."));
const visibleRoot = hiddenByTheSandbox(checkout)
  ? join(realpathSync(homedir()), ".cache", "nex-test-sandboxes")
  : join(checkout, ".test-tmp");

/** A fresh sandbox under the OS temp dir, or with `visible`, outside it (where commands can see it). */
export function makeSandbox(options: { visible?: boolean } = {}): Sandbox {
  if (options.visible) mkdirSync(visibleRoot, { recursive: true });
  const base = scratchDir("nex-cli-", options.visible ? visibleRoot : undefined);
  const workspace = join(base, "ws");
  const dataDir = join(base, "data");
  mkdirSync(workspace, { recursive: true });
  return {
    workspace,
    dataDir,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: base,
      XDG_CONFIG_HOME: join(base, "config"),
      XDG_DATA_HOME: dataDir,
      NO_COLOR: "1",
    },
  };
}

/** What a finished nex process left. */
export interface NexResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts nex; `done` resolves when it exits. */
export function startNex(
  args: string[],
  options: { cwd: string; env: Record<string, string>; entry?: string },
): { child: ChildProcess; done: Promise<NexResult>; stderrSoFar: () => string } {
  // `entry`: a script that sets nex up as an embedder would (added tools), then runs the same CLI.
  const child = spawn(process.execPath, [options.entry ?? nexBin, ...args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const done = new Promise<NexResult>((resolveDone) => {
    child.on("close", (code, signal) => resolveDone({ code, signal, stdout, stderr }));
  });
  return { child, done, stderrSoFar: () => stderr };
}

/** Runs nex to its end. */
export function runNex(
  args: string[],
  options: { cwd: string; env: Record<string, string>; entry?: string },
): Promise<NexResult> {
  return startNex(args, options).done;
}

import type { ChildProcessByStdio } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { type Launch, loadProcesses } from "../../tools/index.ts";

/** How one hook command ended. */
export interface HookRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The user interrupted: the hook was stopped. */
  interrupted: boolean;
  /** It could not be started at all. */
  failed: string | null;
}

/** Most bytes of a hook's stdout and of its stderr that nex keeps: a hook printing megabytes is cut. */
const OUTPUT_CAP = 64 * 1024;
const KILL_GRACE_MS = 2000;

const childProcess = () => process.getBuiltinModule("node:child_process");

/**
 * Runs a hook command as the sandbox launches commands, with the event as JSON on stdin; stopped
 * (its whole process group) at its timeout.
 */
export async function runHook(
  launch: Launch,
  input: unknown,
  options: {
    cwd: string;
    env: Record<string, string | undefined>;
    timeoutMs: number;
    signal?: AbortSignal;
  },
): Promise<HookRun> {
  const {
    commandTag,
    holdLifeline,
    killGroupWhenNexDies,
    launchStdio,
    ownerMark,
    STATUS_FD,
    stopLeftovers,
  } = await loadProcesses();
  return new Promise((resolve) => {
    let child: ChildProcessByStdio<Writable, Readable, Readable>;
    // What the hook detaches (setsid, a double fork) carries the tag, and ends with the hook.
    const tag = commandTag();
    try {
      child = childProcess().spawn(launch.file, launch.args, {
        cwd: options.cwd,
        env: { ...options.env, ...ownerMark(), [tag.name]: tag.value },
        detached: true,
        stdio: launchStdio(launch, "pipe"),
      }) as ChildProcessByStdio<Writable, Readable, Readable>;
      holdLifeline(child);
    } catch (error) {
      launch.release();
      resolve({
        exitCode: null,
        stdout: "",
        stderr: "",
        timedOut: false,
        interrupted: false,
        failed: (error as Error).message,
      });
      return;
    }
    // Outside the sandbox nothing else ends the hook if nex is killed outright.
    const unwatch = launch.contained ? () => {} : killGroupWhenNexDies(child.pid);
    const out = capped();
    const err = capped();
    child.stdout.on("data", out.push);
    child.stderr.on("data", err.push);
    const status = child.stdio[STATUS_FD] as Readable | null | undefined;
    status?.on("error", () => {});
    status?.resume();
    // A hook that never reads its input must not make nex wait or fail.
    child.stdin.on("error", () => {});
    child.stdin.end(`${JSON.stringify(input)}\n`);
    let timedOut = false;
    const group = (signal: NodeJS.Signals) => {
      try {
        process.kill(-(child.pid ?? 0), signal);
      } catch {
        // Gone.
      }
    };
    let interrupted = false;
    const stopHook = () => {
      group("SIGTERM");
      setTimeout(() => {
        group("SIGKILL");
        launch.stop();
      }, KILL_GRACE_MS).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopHook();
    }, options.timeoutMs);
    // An interrupt stops the hook at once: a long timeout is no reason to keep the user waiting.
    const onAbort = () => {
      interrupted = true;
      clearTimeout(timer);
      stopHook();
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    let failed: string | null = null;
    child.on("error", (error) => {
      failed = error.message;
    });
    child.on("close", async (code) => {
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // Whatever the hook left in its group ends with it; the sandbox ends the rest, else the tag finds it.
      group("SIGKILL");
      if (!launch.contained) await stopLeftovers(tag, KILL_GRACE_MS).catch(() => {});
      unwatch();
      launch.release();
      resolve({
        exitCode: code,
        stdout: out.text(),
        stderr: err.text(),
        timedOut,
        interrupted,
        failed,
      });
    });
  });
}

function capped(): { push: (chunk: Buffer) => void; text: () => string } {
  const parts: Buffer[] = [];
  let size = 0;
  let total = 0;
  return {
    push: (chunk) => {
      total += chunk.length;
      if (size >= OUTPUT_CAP) return;
      const part = chunk.subarray(0, OUTPUT_CAP - size);
      parts.push(part);
      size += part.length;
    },
    text: () => {
      const text = Buffer.concat(parts).toString("utf8");
      return total > size
        ? `${text}\n[cut: the hook printed ${total} bytes; nex keeps ${OUTPUT_CAP}]`
        : text;
    },
  };
}

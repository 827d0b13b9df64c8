import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { headTail } from "../results/index.ts";
import { holdLifeline, launchStdio, STATUS_FD } from "./launch-stdio.ts";
import {
  commandTag,
  findLeftovers,
  findTagged,
  killOnExit,
  type Leftovers,
  mergeLeftovers,
  stopLeftovers,
  type Tagged,
} from "./leftover-processes.ts";
import { killGroupWhenNexDies } from "./orphan-watchdog.ts";
import { ownerMark } from "./owner-reaper.ts";

// Loaded on first use rather than at start-up: most sessions start no process for a while, if ever.
const childProcess = () => process.getBuiltinModule("node:child_process");

/** How to run one shell command. */
export interface RunOptions {
  command: string;
  cwd: string;
  env: Record<string, string | undefined>;
  timeoutMs: number;
  /** Wait between SIGTERM and SIGKILL of the process group. */
  killGraceMs: number;
  /** Bytes of output kept (head and tail). */
  outputCap: number;
  signal: AbortSignal;
  /** Takes every byte of output as it arrives (to keep output too large for the result). */
  spool?: { write(chunk: Buffer): void };
  /** Sees each chunk of output as it arrives (the live view). */
  onOutput?: (chunk: Buffer) => void;
  /** The program that runs the command (a sandbox); default `bash -c command`. */
  launch?: {
    file: string;
    args: string[];
    statusFd: boolean;
    lifeline: boolean;
    contained: boolean;
    /** Kills every process the launch holds at once (a sandbox's pids cgroup). */
    stop?: () => void;
  };
}

/** How a command ended, with its capped output. */
export interface RunResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** Output (stdout and stderr interleaved as they arrived), head and tail within the cap. */
  output: string;
  totalBytes: number;
  tail: string;
  /** The command's own process had ended, but a process it started held the output open and was left behind. */
  leftBehind: boolean;
  /** Processes it left running (in its group or detached from it), stopped when it ended. */
  leftovers: Leftovers;
  /** False when a sandbox that reports its start never started the command (its own error is in `output`). */
  started: boolean;
}

type Launch = NonNullable<RunOptions["launch"]>;

/** Starts the launch in a process group of its own, tagged; its status pipe is read as it comes. */
function startChild(
  launch: Launch,
  cwd: string,
  env: Record<string, string | undefined>,
  tag: ReturnType<typeof commandTag>,
): {
  child: ChildProcessByStdio<null, Readable, Readable>;
  statusPipe: Readable | null;
  status: () => string;
  /** Drops the exit hook and the watchdog, once the group is stopped. */
  released: () => void;
} {
  const child = childProcess().spawn(launch.file, launch.args, {
    cwd,
    env: { ...env, ...ownerMark(), [tag.name]: tag.value },
    detached: true,
    stdio: launchStdio(launch, "ignore"),
  }) as ChildProcessByStdio<null, Readable, Readable>;
  holdLifeline(child);
  let status = "";
  const statusPipe = launch.statusFd ? (child.stdio[STATUS_FD] as Readable) : null;
  statusPipe?.on("data", (chunk: Buffer) => {
    if (status.length < 4096) status += chunk.toString("utf8");
  });
  statusPipe?.on("error", () => {});
  const unwatch = launch.contained ? () => {} : killGroupWhenNexDies(child.pid);
  const unregister = killOnExit(tag, child.pid, launch.stop);
  return {
    child,
    statusPipe,
    status: () => status,
    released: () => {
      unregister();
      unwatch();
    },
  };
}

/** Stops the child's process group once: SIGTERM now, SIGKILL after the grace. */
function groupStopper(child: { pid?: number | undefined }, killGraceMs: number): () => void {
  const killGroup = (sig: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, sig);
    } catch {
      // ESRCH: the group is already gone.
    }
  };
  let stopping = false;
  // Not cleared when the command finishes: `close` often comes right after SIGTERM, while a
  // background process that ignores SIGTERM still runs and must get its SIGKILL.
  return (): void => {
    if (stopping) return;
    stopping = true;
    killGroup("SIGTERM");
    setTimeout(() => killGroup("SIGKILL"), killGraceMs);
  };
}

/**
 * Runs `bash -c command` in its own process group. On timeout or abort the whole group gets SIGTERM,
 * then SIGKILL after a grace period; when the command ends, processes it left in its group are stopped
 * too, and so are those it detached from the group (`leftover-processes.ts`).
 */
export function runBash(options: RunOptions): Promise<RunResult> {
  const { command, cwd, env, timeoutMs, killGraceMs, outputCap, signal } = options;
  return new Promise((resolve) => {
    const output = headTail(outputCap);
    const tag = commandTag();
    const launch = options.launch ?? {
      file: "bash",
      args: ["-c", command],
      statusFd: false,
      lifeline: false,
      contained: false,
    };
    // In a PID namespace of its own nothing outlives the command: no /proc scans for leftovers,
    // unless the output is held open after the command's end (the namespace's init outlived it).
    let escaped = false;
    const contained = () => launch.contained && !escaped;
    const look = (group?: number, scanned?: Tagged[] | null): Leftovers =>
      contained()
        ? { checked: true, stopped: [], children: 0 }
        : findLeftovers(tag, group, scanned);
    const { child, statusPipe, status, released } = startChild(launch, cwd, env, tag);
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: string | null } | null = null;
    let spawnError: Error | null = null;
    let leftovers: Leftovers = { checked: true, stopped: [], children: 0 };
    const timers: NodeJS.Timeout[] = [];

    const stopGroup = groupStopper(child, killGraceMs);
    let done = false;
    const finish = (leftBehind: boolean): void => {
      if (done) return;
      done = true;
      for (const timer of timers) clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      const text = spawnError
        ? `${output.text()}Could not start ${launch.file}: ${spawnError.message}`
        : output.text();
      // A second look outside the group, in case a detached process was between fork and exec
      // (unreadable) when the command ended.
      // One scan of /proc serves the second look and the stop that follows it in the same tick.
      const scanned = contained() ? null : findTagged(tag);
      if (exit) leftovers = mergeLeftovers(leftovers, look(child.pid, scanned));
      const stopped = contained() ? Promise.resolve() : stopLeftovers(tag, killGraceMs, scanned);
      void stopped.then(() => {
        released();
        resolve({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          timedOut,
          aborted,
          output: text,
          totalBytes: output.total,
          tail: output.tail(400),
          leftBehind,
          leftovers,
          started: !launch.statusFd || status().includes('"child-pid"'),
        });
      });
    };
    const onAbort = (): void => {
      aborted = true;
      stopGroup();
    };

    const take = (chunk: Buffer): void => {
      output.push(chunk);
      options.spool?.write(chunk);
      options.onOutput?.(chunk);
    };
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    child.on("error", (error) => {
      spawnError = error;
      finish(false);
    });
    child.on("exit", (code, sig) => {
      exit = { code, signal: sig };
      // Seen before the group is signalled: what still runs now, the command left behind. After a
      // timeout or an interrupt the group is already being stopped, and the result says so.
      leftovers = look(timedOut || aborted ? child.pid : undefined);
      stopGroup();
      // A process that left our group (setsid) may hold the pipes open forever: stop waiting for it.
      timers.push(
        setTimeout(() => {
          if (launch.contained) {
            // Something the sandbox should have ended with the command still holds its output.
            escaped = true;
            launch.stop?.();
          }
          child.stdout.destroy();
          child.stderr.destroy();
          statusPipe?.destroy();
          finish(true);
        }, killGraceMs + 500),
      );
    });
    child.on("close", () => finish(false));
    timers.push(
      setTimeout(() => {
        if (exit) return;
        timedOut = true;
        stopGroup();
      }, timeoutMs),
    );
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}

// One background job's life: started in its own process group with its output kept, described,
// its tail read, and stopped with what it detached.
import type { ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";
import { holdLifeline, launchStdio, STATUS_FD } from "./launch-stdio.ts";
import { commandTag, killOnExit, stopLeftovers } from "./leftover-processes.ts";
import { killGroupWhenNexDies } from "./orphan-watchdog.ts";
import { ownerMark } from "./owner-reaper.ts";

const childProcess = () => process.getBuiltinModule("node:child_process");

/** How a job is started: what the sandbox launches, and where. */
export interface JobLaunch {
  file: string;
  args: string[];
  statusFd: boolean;
  lifeline: boolean;
  contained: boolean;
  stop?: () => void;
  release?: () => void;
}

/** Where a job's whole output goes as it arrives (the session's result store). */
export interface JobLog {
  write(chunk: Buffer): void;
  /** The name the model pages the log with, once it has one. */
  name(): string | null;
  finish(): void;
}

/** A job as the model and the user see it. */
export interface JobInfo {
  id: number;
  command: string;
  state: "running" | "exited" | "stopped";
  exitCode: number | null;
  signal: string | null;
  /** Seconds since it started (to its end, when it ended). */
  seconds: number;
  bytes: number;
  log: string | null;
}

export interface Job {
  id: number;
  command: string;
  child: ChildProcessByStdio<null, Readable, Readable>;
  launch: JobLaunch;
  tag: ReturnType<typeof commandTag>;
  started: number;
  ended: number | null;
  state: JobInfo["state"];
  exitCode: number | null;
  signal: string | null;
  bytes: number;
  /** The last TAIL_BYTES of output. */
  tail: Buffer;
  log: JobLog;
  /** The model has not been told yet that it ended. */
  unreported: boolean;
  release: () => void;
  closed: Promise<void>;
}

const TAIL_BYTES = 64 * 1024;

export const describeJob = (job: Job): JobInfo => ({
  id: job.id,
  command: job.command,
  state: job.state,
  exitCode: job.exitCode,
  signal: job.signal,
  seconds: Math.round(((job.ended ?? Date.now()) - job.started) / 1000),
  bytes: job.bytes,
  log: job.log.name(),
});

export function jobTail(job: Job, lines: number, maxBytes: number): string {
  let text = job.tail.toString("utf8");
  if (job.tail.length >= TAIL_BYTES) text = text.replace(/^[^\n]*\n/, "");
  const kept = text.split("\n");
  if (kept.at(-1) === "") kept.pop();
  let out = kept.slice(-lines).join("\n");
  if (Buffer.byteLength(out) > maxBytes) out = out.slice(-maxBytes);
  return out;
}

export async function stopJob(job: Job, killGraceMs: number): Promise<void> {
  if (job.state !== "running") return;
  job.state = "stopped";
  const group = (sig: NodeJS.Signals) => {
    try {
      process.kill(-(job.child.pid ?? 0), sig);
    } catch {
      // ESRCH: the group is gone.
    }
  };
  group("SIGTERM");
  const killed = setTimeout(() => {
    group("SIGKILL");
    job.launch.stop?.();
  }, killGraceMs);
  await job.closed;
  clearTimeout(killed);
  // Whatever it detached (setsid, a double fork) carries its tag.
  if (!job.launch.contained) await stopLeftovers(job.tag, killGraceMs);
  job.launch.stop?.();
}

function both(first: () => void, second: () => void): () => void {
  return () => {
    first();
    second();
  };
}

/** Starts `command` as job `id`: its own process group, output to its log and tail. */
export function spawnJob(
  id: number,
  command: string,
  launch: JobLaunch,
  cwd: string,
  env: Record<string, string | undefined>,
  log: JobLog,
): Job {
  const tag = commandTag();
  const child = childProcess().spawn(launch.file, launch.args, {
    cwd,
    env: { ...env, ...ownerMark(), [tag.name]: tag.value },
    detached: true,
    stdio: launchStdio(launch, "ignore"),
  }) as ChildProcessByStdio<null, Readable, Readable>;
  holdLifeline(child);
  let closed!: () => void;
  const job: Job = {
    id,
    command,
    child,
    launch,
    tag,
    started: Date.now(),
    ended: null,
    state: "running",
    exitCode: null,
    signal: null,
    bytes: 0,
    tail: Buffer.alloc(0),
    log,
    unreported: false,
    release: both(
      killOnExit(tag, child.pid, launch.stop),
      // The sandbox kills a contained job with nex; an unconfined one needs a watchdog.
      launch.contained ? () => {} : killGroupWhenNexDies(child.pid),
    ),
    closed: new Promise((resolve) => {
      closed = resolve;
    }),
  };
  const take = (chunk: Buffer): void => {
    job.bytes += chunk.length;
    job.log.write(chunk);
    const joined = Buffer.concat([job.tail, chunk]);
    job.tail = joined.length > TAIL_BYTES ? joined.subarray(joined.length - TAIL_BYTES) : joined;
  };
  child.stdout.on("data", take);
  child.stderr.on("data", take);
  // bubblewrap's status lines are not needed here; read them so the pipe never fills.
  const status = child.stdio[STATUS_FD] as Readable | null | undefined;
  status?.on("error", () => {});
  status?.resume();
  const end = (code: number | null, sig: string | null): void => {
    if (job.ended !== null) return;
    job.ended = Date.now();
    if (job.state === "running") {
      job.state = "exited";
      job.unreported = true;
    }
    job.exitCode = code;
    job.signal = sig;
    job.log.finish();
    job.release();
    job.launch.release?.();
    closed();
  };
  child.on("error", (error) => {
    take(Buffer.from(`Could not start ${launch.file}: ${error.message}\n`));
    end(null, null);
  });
  child.on("close", (code, sig) => end(code, sig));
  return job;
}

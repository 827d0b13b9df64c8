// Background jobs: a dev server, a watcher, a long build the model checks on later. Each runs like a
// `bash` command (its own process group, the sandbox, a tag that finds what it detaches) but the call
// returns at once; its output goes to a log the model can page, and a tail kept in memory. Jobs end
// when stopped, when the session ends, or with nex itself (even on SIGKILL, through the sandbox).
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

interface Job {
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

/** The jobs of one session. */
export interface JobTable {
  /** Starts `command`; an error text when the table is full. */
  start(
    command: string,
    launch: JobLaunch,
    cwd: string,
    env: Record<string, string | undefined>,
    log: JobLog,
  ): JobInfo | string;
  list(): JobInfo[];
  info(id: number): JobInfo | null;
  /** The last `lines` lines of a job's output (within `maxBytes`). */
  tail(id: number, lines: number, maxBytes: number): string | null;
  /** Stops a job's whole process group (TERM, then KILL after the grace) and what it detached. */
  stop(id: number): Promise<JobInfo | null>;
  /** Stops every running job; returns those it stopped. */
  stopAll(): Promise<JobInfo[]>;
  /** Jobs that ended since the last call, with their last lines, for the model's next turn. */
  ended(): { job: JobInfo; tail: string }[];
  /** The model was told a job ended (its start call said so): `ended` leaves it out. */
  markReported(id: number): void;
  running(): number;
}

/** A table of at most `max` running jobs. */
export function createJobTable(options: { max: number; killGraceMs: number }): JobTable {
  const jobs = new Map<number, Job>();
  let next = 0;

  const describe = (job: Job): JobInfo => ({
    id: job.id,
    command: job.command,
    state: job.state,
    exitCode: job.exitCode,
    signal: job.signal,
    seconds: Math.round(((job.ended ?? Date.now()) - job.started) / 1000),
    bytes: job.bytes,
    log: job.log.name(),
  });

  const tailOf = (job: Job, lines: number, maxBytes: number): string => {
    let text = job.tail.toString("utf8");
    if (job.tail.length >= TAIL_BYTES) text = text.replace(/^[^\n]*\n/, "");
    const kept = text.split("\n");
    if (kept.at(-1) === "") kept.pop();
    let out = kept.slice(-lines).join("\n");
    if (Buffer.byteLength(out) > maxBytes) out = out.slice(-maxBytes);
    return out;
  };

  const stopJob = async (job: Job): Promise<void> => {
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
    }, options.killGraceMs);
    await job.closed;
    clearTimeout(killed);
    // Whatever it detached (setsid, a double fork) carries its tag.
    if (!job.launch.contained) await stopLeftovers(job.tag, options.killGraceMs);
    job.launch.stop?.();
  };

  return {
    start(command, launch, cwd, env, log) {
      const running = [...jobs.values()].filter((job) => job.state === "running");
      if (running.length >= options.max) {
        return `Not started: ${running.length} background jobs are running, the most nex allows (${running.map((j) => `job ${j.id}`).join(", ")}). Stop one with the jobs tool (action "stop") first.`;
      }
      const tag = commandTag();
      const child = childProcess().spawn(launch.file, launch.args, {
        cwd,
        env: { ...env, ...ownerMark(), [tag.name]: tag.value },
        detached: true,
        stdio: launchStdio(launch, "ignore"),
      }) as ChildProcessByStdio<null, Readable, Readable>;
      holdLifeline(child);
      const id = ++next;
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
        job.tail =
          joined.length > TAIL_BYTES ? joined.subarray(joined.length - TAIL_BYTES) : joined;
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
      jobs.set(id, job);
      return describe(job);
    },
    list: () => [...jobs.values()].map(describe),
    info: (id) => {
      const job = jobs.get(id);
      return job ? describe(job) : null;
    },
    tail(id, lines, maxBytes) {
      const job = jobs.get(id);
      return job ? tailOf(job, lines, maxBytes) : null;
    },
    async stop(id) {
      const job = jobs.get(id);
      if (!job) return null;
      await stopJob(job);
      return describe(job);
    },
    async stopAll() {
      const running = [...jobs.values()].filter((job) => job.state === "running");
      await Promise.all(running.map(stopJob));
      return running.map(describe);
    },
    ended() {
      const out: { job: JobInfo; tail: string }[] = [];
      for (const job of jobs.values()) {
        if (!job.unreported) continue;
        job.unreported = false;
        out.push({ job: describe(job), tail: tailOf(job, 10, 2000) });
      }
      return out;
    },
    markReported(id) {
      const job = jobs.get(id);
      if (job) job.unreported = false;
    },
    running: () => [...jobs.values()].filter((job) => job.state === "running").length,
  };
}

function both(first: () => void, second: () => void): () => void {
  return () => {
    first();
    second();
  };
}

/** One line for a job: id, state, command. */
export function jobLine(job: JobInfo): string {
  const state =
    job.state === "running"
      ? `running for ${job.seconds} s`
      : job.state === "stopped"
        ? "stopped by nex"
        : job.signal
          ? `ended by ${job.signal}`
          : `exited with code ${job.exitCode}`;
  return `job ${job.id} (${state}, ${job.bytes} bytes of output${job.log ? `, log ${job.log}` : ""}): ${job.command}`;
}

// Background jobs: a dev server, a watcher, a long build the model checks on later. Each runs like a
// `bash` command (its own process group, the sandbox, a tag that finds what it detaches) but the call
// returns at once; its output goes to a log the model can page, and a tail kept in memory. Jobs end
// when stopped, when the session ends, or with nex itself (even on SIGKILL, through the sandbox).
import {
  describeJob,
  type Job,
  type JobInfo,
  type JobLaunch,
  type JobLog,
  jobTail,
  spawnJob,
  stopJob,
} from "./background-job.ts";

export type { JobInfo, JobLaunch, JobLog } from "./background-job.ts";

/** The jobs of one session. */
export interface JobTable {
  /** Starts `command`; an error text when the table is full. */
  start(
    command: string,
    launch: JobLaunch,
    cwd: string,
    env: Record<string, string | undefined>,
    log: JobLog,
  ): Promise<JobInfo | string>;
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

  const describe = describeJob;
  const stop = (job: Job): Promise<void> => stopJob(job, options.killGraceMs);

  return {
    async start(command, launch, cwd, env, log) {
      const running = [...jobs.values()].filter((job) => job.state === "running");
      if (running.length >= options.max) {
        return `Not started: ${running.length} background jobs are running, the most nex allows (${running.map((j) => `job ${j.id}`).join(", ")}). Stop one with the jobs tool (action "stop") first.`;
      }
      const job = spawnJob(next + 1, command, launch, cwd, env, log);
      next = job.id;
      jobs.set(job.id, job);
      return describe(job);
    },
    list: () => [...jobs.values()].map(describe),
    info: (id) => {
      const job = jobs.get(id);
      return job ? describe(job) : null;
    },
    tail(id, lines, maxBytes) {
      const job = jobs.get(id);
      return job ? jobTail(job, lines, maxBytes) : null;
    },
    async stop(id) {
      const job = jobs.get(id);
      if (!job) return null;
      await stop(job);
      return describe(job);
    },
    async stopAll() {
      const running = [...jobs.values()].filter((job) => job.state === "running");
      await Promise.all(running.map(stop));
      return running.map(describe);
    },
    ended() {
      const out: { job: JobInfo; tail: string }[] = [];
      for (const job of jobs.values()) {
        if (!job.unreported) continue;
        job.unreported = false;
        out.push({ job: describe(job), tail: jobTail(job, 10, 2000) });
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

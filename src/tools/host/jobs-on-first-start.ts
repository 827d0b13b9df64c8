import type { JobInfo, JobTable } from "../shell/index.ts";

type Shell = typeof import("../shell/index.ts");

/**
 * The session's background jobs, loaded when the first one starts: until then the table answers as
 * the empty table it would be (no job listed, running or ended, nothing to stop), so a session of
 * file reads and writes never loads the process runner. `line` describes a job, and is only ever
 * asked about one, so after the load.
 */
export function jobsOnFirstStart(options: { max: number; killGraceMs: number }): {
  jobs: JobTable;
  line: (job: JobInfo) => string;
} {
  let shell: Shell | null = null;
  let table: JobTable | null = null;
  const load = async (): Promise<JobTable> => {
    shell ??= await import("../shell/index.ts");
    table ??= shell.createJobTable(options);
    return table;
  };
  const jobs: JobTable = {
    start: async (command, launch, cwd, env, log) =>
      (await load()).start(command, launch, cwd, env, log),
    list: () => table?.list() ?? [],
    info: (id) => table?.info(id) ?? null,
    tail: (id, lines, maxBytes) => table?.tail(id, lines, maxBytes) ?? null,
    stop: async (id) => (table ? table.stop(id) : null),
    stopAll: async () => (table ? table.stopAll() : []),
    ended: () => table?.ended() ?? [],
    markReported: (id) => table?.markReported(id),
    running: () => table?.running() ?? 0,
  };
  return { jobs, line: (job) => (shell as Shell).jobLine(job) };
}

import { jobsTool } from "../builtin/index.ts";
import type { WorkspaceToolHost } from "./host-options.ts";
import { type HostState, sharedContext } from "./host-state.ts";

type JobsFacade = Pick<WorkspaceToolHost, "notices" | "endOfPrompt" | "stopJobs" | "jobsForUser">;

/** The background jobs as the loop and a person see them: ended ones, stops, and the jobs tool. */
export function createJobsFacade(state: HostState): JobsFacade {
  const { options, jobs, jobLine } = state;
  return {
    notices: () =>
      jobs
        .ended()
        .map(
          ({ job, tail }) =>
            `[nex] Background ${jobLine(job)} has ended.${tail ? ` Its last lines:\n${tail}` : ""}`,
        ),
    async endOfPrompt() {
      if (options.jobsOutlivePrompts) return [];
      const stopped = await jobs.stopAll();
      return stopped.map(
        (job) =>
          `Stopped background ${jobLine(job)}: it was still running when the task ended, and jobs end with the task in this mode.`,
      );
    },
    stopJobs: async () => (await jobs.stopAll()).map(jobLine),
    async jobsForUser(action, id) {
      const ctx = await sharedContext(state);
      const args = { action, ...(id !== undefined ? { id } : {}), lines: 20 };
      const outcome = await jobsTool().execute(args, {
        ...ctx,
        signal: AbortSignal.timeout(30_000),
        turn: 0,
      });
      return outcome.content;
    },
  };
}

import type { SessionTools } from "./session-parts.ts";

/** `/bg` (no id: the list), `/bg ID` (its last lines), `/bg stop ID`: the words to show. */
export async function runJobsCommand(
  jobs: NonNullable<SessionTools["jobsForUser"]>,
  args: string,
): Promise<string> {
  const words = args.trim().split(/\s+/).filter(Boolean);
  const id = Number(words.at(-1));
  return words.length === 0
    ? await jobs("list")
    : words.length === 1 && Number.isInteger(id) && id > 0
      ? await jobs("output", id)
      : words.length === 2 && words[0] === "stop" && Number.isInteger(id) && id > 0
        ? await jobs("stop", id)
        : "Usage: /bg lists the background jobs, /bg ID shows a job's last lines, /bg stop ID stops it.";
}

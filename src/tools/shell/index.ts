// Running shell commands: the process runner, background jobs, leftover processes, live output; and,
// from ../command-line/, reading them (the parser, words, named paths).

export {
  afterCd,
  baseName,
  commandName,
  findStarts,
  gitSubcommand,
  type NamedPaths,
  namedPaths,
  type ParsedCommand,
  parseCommand,
  type SubCommand,
  scanWords,
  segmentMatcher,
  shortCommand,
  wordPaths,
} from "../command-line/index.ts";
export { createJobTable, type JobInfo, type JobTable, jobLine } from "./background-jobs.ts";
export { runBash } from "./bash-process.ts";
export { holdLifeline, LIFELINE_FD, launchStdio, STATUS_FD } from "./launch-stdio.ts";
export { commandTag, describeLeftovers, stopLeftovers } from "./leftover-processes.ts";
export { liveOutput } from "./live-output.ts";
export { killGroupWhenNexDies } from "./orphan-watchdog.ts";
export { OWNER_VARIABLE, ownerMark } from "./owner-reaper.ts";

// Running shell commands and reading them: the process runner, leftover processes, the parser, named paths.

export { createJobTable, type JobInfo, type JobTable, jobLine } from "./background-jobs.ts";
export { runBash } from "./bash-process.ts";
export {
  afterCd,
  type NamedPaths,
  namedPaths,
  segmentMatcher,
  wordPaths,
} from "./command-paths.ts";
export {
  baseName,
  commandName,
  findStarts,
  gitSubcommand,
  scanWords,
  shortCommand,
} from "./command-words.ts";
export { holdLifeline, LIFELINE_FD, launchStdio, STATUS_FD } from "./launch-stdio.ts";
export { commandTag, describeLeftovers, stopLeftovers } from "./leftover-processes.ts";
export { liveOutput } from "./live-output.ts";
export { killGroupWhenNexDies } from "./orphan-watchdog.ts";
export { OWNER_VARIABLE, ownerMark } from "./owner-reaper.ts";
export { type ParsedCommand, parseCommand, type SubCommand } from "./shell-commands.ts";

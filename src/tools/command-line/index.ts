// How a shell command line reads, without running it: its simple commands (mvdan/sh's parser, loaded
// at the first parse), their words, and the paths they name. The permission checks and undo read
// commands here; running them is the shell folder's (which offers these too).

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
export { type ParsedCommand, parseCommand, type SubCommand } from "./shell-commands.ts";

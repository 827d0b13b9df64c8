export { formatBytes, formatCount, formatLines, formatSize } from "./counts.ts";
export { cutOffBy } from "./cut-off.ts";
export type * from "./errors.ts";
export type * from "./events.ts";
export { isTerminal } from "./events.ts";
export { parseJson } from "./json-text.ts";
export type * from "./messages.ts";
export { plainText } from "./plain-text.ts";
export type * from "./provider.ts";
export {
  describeCompact,
  describeModelSwitch,
  describeUndo,
} from "./session-result-words.ts";
export type * from "./session-results.ts";
export type * from "./tool.ts";
export type * from "./turn.ts";

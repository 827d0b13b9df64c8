export { formatBytes, formatCount, formatLines, formatSize } from "./counts.ts";
export type * from "./errors.ts";
export type * from "./events.ts";
export { isTerminal } from "./events.ts";
export type * from "./messages.ts";
export { plainText } from "./plain-text.ts";
export type * from "./provider.ts";
export type * from "./tool.ts";
export type * from "./turn.ts";

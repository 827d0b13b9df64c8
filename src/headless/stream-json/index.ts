export type { SessionSettings } from "./control.ts";
export type { RunFailure } from "./envelope.ts";
export { type OpenedForStream, type PromptFinisher, runStreamJson } from "./run.ts";

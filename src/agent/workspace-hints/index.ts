// What a reminder says of the workspace, from what the tool host found there.
export { symbolHint } from "./symbol-hint.ts";

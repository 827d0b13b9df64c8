export { fitResult, headTail, resultCapForWindow } from "./output-cap.ts";
export type { ResultStore } from "./result-store.ts";
export { createResultStore, storedNote } from "./result-store.ts";

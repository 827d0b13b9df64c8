// The views the app composes; the rest of the chat imports them from here.
export { EntryView, ToolBlock } from "./entry-view.ts";
export { isHazard, PermissionView, shownPreview, shownSummary } from "./permission-view.ts";
export { PromptView } from "./prompt-view.ts";
export { StatusBar } from "./status-bar.ts";
export { ThinkingLine, thinkingWords } from "./thinking-line.ts";

// What a keypress does to the prompt: the key map, the line editor, history, paste markers,
// completion of commands and paths, the clipboard's image (loaded on the first Ctrl-V), and which
// approvals may be saved for the project.
export {
  applySuggestion,
  type Completion,
  completionAt,
  SuggestionList,
  sharedStart,
  suggestionRows,
} from "./completion.ts";
export { type EditorState, editorWith, insert } from "./editor.ts";
export {
  answerGuardMs,
  busyKeysGuide,
  COMMAND_WAITS_HINT,
  handleKey,
  type InputAction,
  type InputState,
  initialInput,
  isCommandText,
} from "./keymap.ts";
export { savableForProject } from "./project-approval.ts";
/** Ctrl-V's module, loaded at first use (it is never needed to start). */
export const clipboardImage = () => import("./clipboard-image.ts");

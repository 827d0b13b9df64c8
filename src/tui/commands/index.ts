// What a slash command does (`commands.ts` lists them, `command-runner.ts` runs them) and the
// pickers they open: models, rewind points, sessions.

export { runCommand } from "./command-runner.ts";
export { helpText, isCustomCommand, modeLabel, nextMode, parseCommand } from "./commands.ts";
export { modelChosen } from "./model-command.ts";
export { ModelPicker, type ModelPickerState, modelPickerKey } from "./model-picker.ts";
export { doRewind } from "./rewind-command.ts";
export {
  openRewindPicker,
  RewindPicker,
  type RewindPickerState,
  rewindKey,
} from "./rewind-picker.ts";
export { pickerKey, pickSession, SessionPicker } from "./session-picker.ts";

// What comes into a session beside a prompt's text: lines another party writes, read with bounded
// memory; notes typed during a turn and notes from outside, given at the next turn boundary; pasted
// images, kept once by digest; `!command` prompts; `@path` completion.
export {
  boundedLines,
  type InputLine,
  inputLineCap,
  LineSplitter,
  MAX_INPUT_LINE_BYTES,
  type OnTooLong,
  readBounded,
} from "./bounded-lines.ts";
export { directCommand, directCommandMessage } from "./direct-command.ts";
export { createImageStore, type ImageStore } from "./image-store.ts";
export { completePath } from "./path-completion.ts";
export { withTurnNotes } from "./turn-notes.ts";
export { noteForModel, type PendingNote, UserNotes } from "./user-notes.ts";

/** The prompt being typed: its text and the cursor, an index into the text. */
export interface EditorState {
  text: string;
  cursor: number;
}

export const emptyEditor: EditorState = { text: "", cursor: 0 };

/** An editor holding `text` with the cursor at its end. */
export function editorWith(text: string): EditorState {
  return { text, cursor: text.length };
}

/** Inserts typed or pasted text; a pasted carriage return becomes a newline, never a submit. */
export function insert(state: EditorState, typed: string): EditorState {
  const clean = typed.replace(/\r\n?/g, "\n").replace(/\t/g, "  ");
  const text = state.text.slice(0, state.cursor) + clean + state.text.slice(state.cursor);
  return { text, cursor: state.cursor + clean.length };
}

export function backspace(state: EditorState): EditorState {
  if (state.cursor === 0) return state;
  const start = previousCharStart(state.text, state.cursor);
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

export function deleteForward(state: EditorState): EditorState {
  if (state.cursor >= state.text.length) return state;
  const end = nextCharEnd(state.text, state.cursor);
  return { text: state.text.slice(0, state.cursor) + state.text.slice(end), cursor: state.cursor };
}

// Step over a surrogate pair as one character.
function previousCharStart(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return code >= 0xdc00 && code <= 0xdfff && index >= 2 ? index - 2 : index - 1;
}

function nextCharEnd(text: string, index: number): number {
  const code = text.charCodeAt(index);
  return code >= 0xd800 && code <= 0xdbff && index + 2 <= text.length ? index + 2 : index + 1;
}

export function left(state: EditorState): EditorState {
  return state.cursor === 0
    ? state
    : { ...state, cursor: previousCharStart(state.text, state.cursor) };
}

export function right(state: EditorState): EditorState {
  return state.cursor >= state.text.length
    ? state
    : { ...state, cursor: nextCharEnd(state.text, state.cursor) };
}

function lineStart(text: string, index: number): number {
  return text.lastIndexOf("\n", index - 1) + 1;
}

function lineEnd(text: string, index: number): number {
  const end = text.indexOf("\n", index);
  return end < 0 ? text.length : end;
}

export function home(state: EditorState): EditorState {
  return { ...state, cursor: lineStart(state.text, state.cursor) };
}

export function end(state: EditorState): EditorState {
  return { ...state, cursor: lineEnd(state.text, state.cursor) };
}

/** Moves the cursor one line up, or returns null on the first line (the caller then walks history). */
export function lineUp(state: EditorState): EditorState | null {
  const start = lineStart(state.text, state.cursor);
  if (start === 0) return null;
  const column = state.cursor - start;
  const previousStart = lineStart(state.text, start - 1);
  return { ...state, cursor: Math.min(previousStart + column, start - 1) };
}

/** Moves the cursor one line down, or returns null on the last line. */
export function lineDown(state: EditorState): EditorState | null {
  const endOfLine = lineEnd(state.text, state.cursor);
  if (endOfLine >= state.text.length) return null;
  const column = state.cursor - lineStart(state.text, state.cursor);
  const nextStart = endOfLine + 1;
  return { ...state, cursor: Math.min(nextStart + column, lineEnd(state.text, nextStart)) };
}

/** Ctrl-W: deletes the word before the cursor. */
export function deleteWordBack(state: EditorState): EditorState {
  const before = state.text.slice(0, state.cursor);
  const start = before.replace(/\S*\s*$/, "").length;
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

/** Ctrl-U: deletes from the start of the line to the cursor. */
export function deleteToLineStart(state: EditorState): EditorState {
  const start = lineStart(state.text, state.cursor);
  return { text: state.text.slice(0, start) + state.text.slice(state.cursor), cursor: start };
}

/**
 * What Enter does: a trailing backslash before the cursor becomes a newline (continue the prompt);
 * otherwise the text is submitted.
 */
export function enter(
  state: EditorState,
): { type: "newline"; state: EditorState } | { type: "submit"; text: string } {
  if (state.text.slice(0, state.cursor).endsWith("\\")) {
    const trimmed = {
      text: state.text.slice(0, state.cursor - 1) + state.text.slice(state.cursor),
      cursor: state.cursor - 1,
    };
    return { type: "newline", state: insert(trimmed, "\n") };
  }
  return { type: "submit", text: state.text };
}

import type { Key } from "ink";
import type { NoteKind, PermissionAnswer } from "../../protocol/index.ts";
import type { PendingPermission } from "../state/index.ts";
import * as edit from "./editor.ts";
import * as hist from "./history.ts";
import { expandPastes, type Pastes, pasteMarker } from "./paste.ts";
import { savableForProject } from "./project-approval.ts";
import { typedAhead } from "./typeahead.ts";

/** The prompt's own state: what is typed, the history walk, a deny reason being typed. */
export interface InputState {
  editor: edit.EditorState;
  history: hist.HistoryState;
  /** The reason being typed after "n" on a permission prompt, or null. */
  reason: edit.EditorState | null;
  /** A first Ctrl-C on an idle, empty prompt arms the second one to exit. */
  exitArmed: boolean;
  /** Inside a bracketed paste: everything is text, Enter included. */
  pasting: boolean;
  hint: string | null;
  /** When a key last reached a permission prompt without answering it (ms, the context's clock). */
  strayAt: number;
  /**
   * Answer keys pressed too early, before any typing: meant as answers, so they never reach the draft,
   * unless more typing follows (then they were the start of a word, and go to the draft with it).
   */
  swallowed?: string;
  /** The paste being received, when it goes to the prompt (see paste.ts). */
  pasted?: string;
  /** Large pastes in the draft, by the marker that stands for them. */
  pastes?: Pastes;
  /** The first input was read: anything typed ahead of the chat has come (see typeahead.ts). */
  started?: boolean;
  /** Ctrl-O opened the live reasoning under the thinking line (see thinking-line.ts). */
  thinkingOpen?: boolean;
  /** Esc was pressed over a draft while a turn runs: Enter now steers, a second Esc interrupts. */
  steerArmed?: boolean;
}

export const initialInput: InputState = {
  editor: edit.emptyEditor,
  history: hist.emptyHistory,
  reason: null,
  exitArmed: false,
  pasting: false,
  hint: null,
  strayAt: Number.NEGATIVE_INFINITY,
};

/**
 * How long a permission prompt ignores answer keys after it appears, and after any key that did not
 * answer it: someone typing their next prompt when the question pops up must not approve it by accident.
 */
export const answerGuardMs = 300;

/** What the question says of typing that went to the draft, and how much the draft holds, so none of it seems lost. */
function draftHint(draft: { text: string }): string {
  const size = [...draft.text].length;
  // The draft's whole size: what was in it before the question is counted too, so the number is
  // always true of what the user will find there.
  return `Your typing went to the prompt draft, which now holds ${size} character${size === 1 ? "" : "s"}. Answer with a single key: y, a or n.`;
}

/** What the rest of the TUI is doing, read fresh at each key. */
export interface InputContext {
  /** A prompt or command is running. */
  busy: boolean;
  /** A request is in flight or waiting to retry. */
  requesting: boolean;
  permission: PendingPermission | null;
  /** The clock at this key, in ms. */
  now: number;
  /** When the permission prompt now shown appeared, on the same clock. */
  permissionShownAt: number;
  /** Answer keys count only after this many quiet ms (see answerGuardMs). */
  guardMs: number;
  /** The prompt shows the request's summary whole; approving for the session needs that. */
  permissionWhole: boolean;
  /** Messages typed during the turn still waiting for a boundary. */
  queued?: number;
}

/** A slash command or a `!command`: it runs between turns, never as a message to a running one. */
export function isCommandText(text: string): boolean {
  return /^\s*[/!]/.test(text);
}

/** What Enter and Esc will do now, said under the prompt while a turn runs and a draft is typed. */
export function busyKeysGuide(state: InputState): string {
  return state.steerArmed
    ? "Enter: send as a steering note now · Esc: interrupt the turn · other keys: keep editing"
    : "Enter: queue for the next tool result · Esc then Enter: steer · Esc twice: interrupt";
}

/** Said when a command is entered while a turn runs; the command stays in the prompt. */
export const COMMAND_WAITS_HINT =
  "Commands run between turns: press Enter once this one ends (or Esc to interrupt it).";

/** What a key asks the TUI to do beyond changing the prompt. */
export type InputAction =
  /** `shown`: the prompt as the chat shows it (large pastes collapsed), when it differs from `text`. */
  | { type: "submit"; text: string; shown?: string }
  /** Typed while a turn runs: waits for the next turn boundary (`steer`: ahead of the others). */
  | { type: "queue"; text: string; kind: NoteKind }
  /** Up on an empty prompt while messages wait: the last one comes back to be edited. */
  | { type: "unqueue_last" }
  | { type: "interrupt" }
  | { type: "answer"; request: PendingPermission; answer: PermissionAnswer }
  | { type: "view_request"; request: PendingPermission }
  | { type: "cycle_mode" }
  /** Ctrl-O: the latest child agent's steps in full. */
  | { type: "expand_child" }
  /** Tab: complete the command or `@path` being typed. */
  | { type: "complete" }
  /** Esc with nothing running: hide the suggestions. */
  | { type: "dismiss_completion" }
  /** Ctrl-V: the clipboard's image into the prompt, as a path. */
  | { type: "paste_image" }
  | { type: "exit" };

/** The new input state and the actions to carry out, in order. */
export interface KeyResult {
  state: InputState;
  actions: InputAction[];
}

/** A key event with no key flags set: plain text input. */
export const noKey: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

const pasteStart = "[200~";

// C0 controls a terminal sends for keys (Tab, newline and Esc aside: Ink reads Esc sequences itself).
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the keys being looked for
const controlInside = /[\x00-\x08\x0b-\x1a\x7f]/;

/** A chunk cut into its keys: runs of text, and each control character as the key Ink names it. */
function keysIn(input: string): { input: string; key: Key }[] {
  const pieces: { input: string; key: Key }[] = [];
  let text = "";
  for (const char of input) {
    if (!controlInside.test(char)) {
      text += char;
      continue;
    }
    if (text !== "") pieces.push({ input: text, key: noKey });
    text = "";
    const code = char.charCodeAt(0);
    if (char === "\r") pieces.push({ input: "\r", key: { ...noKey, return: true } });
    else if (char === "\x7f" || char === "\b")
      pieces.push({ input: "", key: { ...noKey, delete: true } });
    else if (code > 0)
      pieces.push({ input: String.fromCharCode(code + 96), key: { ...noKey, ctrl: true } });
  }
  if (text !== "") pieces.push({ input: text, key: noKey });
  return pieces;
}
const pasteEnd = "[201~";

function editKey(state: edit.EditorState, input: string, key: Key): edit.EditorState | null {
  // Terminals send DEL (0x7f) for Backspace, which Ink names "delete": both erase backwards.
  if (key.backspace || key.delete) return edit.backspace(state);
  if (key.leftArrow) return edit.left(state);
  if (key.rightArrow) return edit.right(state);
  if (key.home || (key.ctrl && input === "a")) return edit.home(state);
  if (key.end || (key.ctrl && input === "e")) return edit.end(state);
  if (key.ctrl && input === "w") return edit.deleteWordBack(state);
  if (key.ctrl && input === "u") return edit.deleteToLineStart(state);
  if (key.ctrl && input === "d") return edit.deleteForward(state);
  if (key.ctrl || key.meta || key.tab || key.upArrow || key.downArrow) return null;
  if (key.pageUp || key.pageDown || input === "") return null;
  return edit.insert(state, input);
}

// Keys that do not answer the question (typing that was meant for the prompt) go to the draft.
function strayKey(current: InputState, ctx: InputContext, input: string, key: Key): KeyResult {
  // Typing after held-back keys: they were the start of it.
  const state =
    current.swallowed && !key.return && editKey(current.editor, input, key) !== null
      ? { ...current, editor: edit.insert(current.editor, current.swallowed), swallowed: "" }
      : current;
  const editor = key.return ? null : editKey(state.editor, input, key);
  const next = { ...state, strayAt: ctx.now };
  if (editor === null || editor === state.editor) return { state: next, actions: [] };
  return { state: { ...next, editor, hint: draftHint(editor) }, actions: [] };
}

function permissionKey(
  state: InputState,
  ctx: InputContext,
  request: PendingPermission,
  input: string,
  key: Key,
  lone: boolean,
): KeyResult {
  if (state.reason === null) {
    // An answer is one key on its own, pressed after a quiet moment: never part of a burst or a paste.
    const quiet = ctx.now - Math.max(ctx.permissionShownAt, state.strayAt) >= ctx.guardMs;
    const choice = lone && quiet && input.length === 1 ? input.toLowerCase() : null;
    const answer = (a: PermissionAnswer): KeyResult => ({
      state: { ...state, hint: null, swallowed: "" },
      actions: [{ type: "answer", request, answer: a }],
    });
    // An answer key pressed as the question appeared, before any typing, is held back: it neither
    // answers nor lands in the draft later (it was meant as an answer, too early).
    const typing = state.strayAt >= ctx.permissionShownAt && !state.swallowed;
    if (lone && !quiet && !typing && input.length === 1 && "yanvp".includes(input.toLowerCase())) {
      const hint = `${input} ignored: pressed as the question appeared. Read it, then press again.`;
      const swallowed = `${state.swallowed ?? ""}${input}`;
      return { state: { ...state, strayAt: ctx.now, swallowed, hint }, actions: [] };
    }
    if (choice === "y") return answer({ type: "allow_once" });
    if (choice === "a" && !ctx.permissionWhole) {
      const hint =
        "a is unavailable: the request is too long to show whole. Press v to view it, then y or n.";
      return { state: { ...state, hint }, actions: [] };
    }
    if (choice === "a") return answer({ type: "allow_session" });
    if (choice === "p" && ctx.permissionWhole && savableForProject(request.name))
      return answer({ type: "allow_project" });
    if (choice === "v") return { state, actions: [{ type: "view_request", request }] };
    if (choice === "n") {
      return { state: { ...state, hint: null, reason: edit.emptyEditor }, actions: [] };
    }
    return strayKey(state, ctx, input, key);
  }
  if (key.return) {
    const text = state.reason.text.trim();
    const answer: PermissionAnswer =
      text === "" ? { type: "deny" } : { type: "deny", reason: text };
    return { state: { ...state, reason: null }, actions: [{ type: "answer", request, answer }] };
  }
  const reason = editKey(state.reason, input, key);
  return { state: reason ? { ...state, reason } : state, actions: [] };
}

function promptKey(state: InputState, ctx: InputContext, input: string, key: Key): KeyResult {
  const { editor } = state;
  const done = (next: Partial<InputState>, actions: InputAction[] = []): KeyResult => ({
    state: { ...state, hint: null, steerArmed: false, ...next },
    actions,
  });
  if (key.return) {
    // While a turn runs, Alt+Enter (or Esc then Enter) sends a steering note; otherwise a new line.
    if (key.shift || (key.meta && !ctx.busy)) return done({ editor: edit.insert(editor, "\n") });
    const steer = key.meta || (ctx.busy && state.steerArmed === true);
    const result = steer ? null : edit.enter(editor);
    if (result?.type === "newline") return done({ editor: result.state });
    const typed = result?.text ?? editor.text;
    if (typed.trim() === "") return done({});
    const pastes = state.pastes ?? {};
    const text = expandPastes(typed, pastes);
    if (ctx.busy) {
      if (isCommandText(text)) return done({ hint: COMMAND_WAITS_HINT });
      const kind: NoteKind = steer ? "steer" : "queued";
      return done(
        { editor: edit.emptyEditor, history: hist.remember(state.history, text), pastes: {} },
        [{ type: "queue", text, kind }],
      );
    }
    return done(
      { editor: edit.emptyEditor, history: hist.remember(state.history, text), pastes: {} },
      [text === typed ? { type: "submit", text } : { type: "submit", text, shown: typed }],
    );
  }
  if (key.upArrow) {
    if (editor.text === "" && (ctx.queued ?? 0) > 0) return done({}, [{ type: "unqueue_last" }]);
    const moved = edit.lineUp(editor);
    if (moved) return done({ editor: moved });
    const back = hist.previous(state.history, editor.text);
    return back ? done({ history: back.state, editor: edit.editorWith(back.text) }) : done({});
  }
  if (key.downArrow) {
    const moved = edit.lineDown(editor);
    if (moved) return done({ editor: moved });
    const forward = hist.next(state.history);
    return forward
      ? done({ history: forward.state, editor: edit.editorWith(forward.text) })
      : done({});
  }
  const next = editKey(editor, input, key);
  return next ? done({ editor: next }) : { state, actions: [] };
}

/**
 * Folds one key (as Ink reports it) into the prompt's state. Pure: the caller keeps the state between
 * keys, so several keys arriving in one chunk each see the state the previous one left.
 */
export function handleKey(
  current: InputState,
  ctx: InputContext,
  input: string,
  key: Key,
): KeyResult {
  if (current.started) return fold(current, ctx, input, key, true);
  const first = typedAhead(input, key);
  return fold({ ...current, started: true }, ctx, first.input, first.key, true);
}

// `lone` is false for the pieces of a chunk that held several keys: none of them is a deliberate answer.
function fold(
  current: InputState,
  ctx: InputContext,
  input: string,
  key: Key,
  lone: boolean,
): KeyResult {
  // A deny reason outlives its request when the turn ended meanwhile: drop it.
  const state = ctx.permission || current.reason === null ? current : { ...current, reason: null };
  if (input === pasteStart) return { state: { ...state, pasting: true, pasted: "" }, actions: [] };
  if (input === pasteEnd) return { state: endPaste(state), actions: [] };
  if (state.pasting && !ctx.permission) {
    return { state: { ...state, pasted: `${state.pasted ?? ""}${input}` }, actions: [] };
  }
  if (state.pasting) {
    if (ctx.permission && state.reason) {
      return { state: { ...state, reason: edit.insert(state.reason, input) }, actions: [] };
    }
    if (ctx.permission) {
      const editor = edit.insert(state.editor, input);
      return {
        state: { ...state, editor, strayAt: ctx.now, hint: draftHint(editor) },
        actions: [],
      };
    }
    return { state: { ...state, editor: edit.insert(state.editor, input) }, actions: [] };
  }
  // Outside a paste, a control key inside a chunk (Enter, Ctrl-U, Backspace...) is a key that arrived
  // in the same read as the text around it: each is folded as the key it is, never as a character.
  if (!key.ctrl && !key.meta && input.length > 1 && controlInside.test(input)) {
    let result: KeyResult = { state, actions: [] };
    for (const piece of keysIn(input))
      result = merge(result, fold(result.state, ctx, piece.input, piece.key, false));
    return result;
  }

  const isCtrlC = key.ctrl && input === "c";
  const armed = isCtrlC ? state : { ...state, exitArmed: false };
  if (isCtrlC) {
    if (ctx.busy || ctx.requesting || ctx.permission) {
      return { state: { ...state, reason: null, hint: null }, actions: [{ type: "interrupt" }] };
    }
    if (state.editor.text !== "")
      return { state: { ...state, editor: edit.emptyEditor }, actions: [] };
    if (state.exitArmed) return { state, actions: [{ type: "exit" }] };
    return {
      state: { ...state, exitArmed: true, hint: "Press Ctrl-C again to exit." },
      actions: [],
    };
  }
  if (key.escape) {
    if (state.reason !== null) return { state: { ...armed, reason: null }, actions: [] };
    // Esc over a draft while a turn runs keeps the draft and arms steering: Enter then sends it as a
    // steering note (the documented "Esc then Enter", pressed one after the other); Esc again interrupts.
    if (ctx.busy && !ctx.permission && !state.steerArmed && state.editor.text.trim() !== "")
      return { state: { ...armed, steerArmed: true }, actions: [] };
    if (ctx.busy || ctx.requesting || ctx.permission) {
      return {
        state: { ...armed, hint: null, steerArmed: false },
        actions: [{ type: "interrupt" }],
      };
    }
    return { state: armed, actions: [{ type: "dismiss_completion" }] };
  }
  if (key.tab && key.shift) return { state: armed, actions: [{ type: "cycle_mode" }] };
  if (key.tab && !ctx.permission) return { state: armed, actions: [{ type: "complete" }] };
  if (key.ctrl && input === "o" && !ctx.permission)
    return { state: armed, actions: [{ type: "expand_child" }] };
  if (key.ctrl && input === "v" && !ctx.permission)
    return { state: armed, actions: [{ type: "paste_image" }] };
  if (ctx.permission) return permissionKey(armed, ctx, ctx.permission, input, key, lone);
  return promptKey(armed.swallowed ? { ...armed, swallowed: "" } : armed, ctx, input, key);
}

// The paste goes into the prompt whole when short, as a marker when long.
function endPaste(state: InputState): InputState {
  const text = (state.pasted ?? "").replace(/\r\n?/g, "\n");
  const done = { ...state, pasting: false, pasted: "" };
  if (text === "") return done;
  const pastes = state.pastes ?? {};
  const marker = pasteMarker(text, pastes);
  if (marker === null) return { ...done, editor: edit.insert(state.editor, text) };
  return {
    ...done,
    editor: edit.insert(state.editor, marker),
    pastes: { ...pastes, [marker]: text },
  };
}

function merge(first: KeyResult, second: KeyResult): KeyResult {
  return { state: second.state, actions: [...first.actions, ...second.actions] };
}

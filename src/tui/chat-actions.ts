// What the chat does with what the user typed: prompts and notes sent, slash commands run, Tab
// completion, Ctrl-O's expansion, permission answers, and the keys of the pickers. The chat's state
// lives in App (refs and React state); these functions act on it through a `Chat`, one per render.
import type { Key } from "ink";
import type { RefObject } from "react";
import type {
  NoteKind,
  PermissionAnswer,
  PermissionMode,
  TerminalEvent,
} from "../protocol/index.ts";
import { plainText } from "../protocol/plain-text.ts";
import type { RewindPoint } from "../runtime/history/index.ts";
import type { AgentSession, SessionSummary } from "../runtime/session/index.ts";
import {
  doRewind,
  isCustomCommand,
  type ModelPickerState,
  modelChosen,
  modelPickerKey,
  nextMode,
  openRewindPicker,
  parseCommand,
  pickerKey,
  type RewindPickerState,
  rewindKey,
  runCommand,
} from "./commands/index.ts";
import { isHazard, shownSummary } from "./components/index.ts";
import { expansion, runningExpansion } from "./expansion.ts";
import {
  answerGuardMs,
  applySuggestion,
  COMMAND_WAITS_HINT,
  type Completion,
  clipboardImage,
  completionAt,
  type EditorState,
  editorWith,
  handleKey,
  type InputAction,
  type InputState,
  insert,
  isCommandText,
  sharedStart,
} from "./input/index.ts";
import { addEntry, answered, type PendingPermission, type UiStore } from "./state/index.ts";
import { FOCUS_IN, FOCUS_OUT } from "./terminal-notify.ts";

/** Properties of the TUI's root component. */
export interface AppProps {
  session: AgentSession;
  store: UiStore;
  /** Erases the terminal (for /clear). */
  clearScreen(): void;
  /** Quiet ms before a permission prompt takes an answer key; answerGuardMs unless a test stretches it. */
  answerGuardMs?: number;
  /** Called with the session to open instead of this one (then the chat exits, and its host reopens). */
  onSwitch?(sessionId: string, line?: string): void;
  /** The terminal reported focus in or out (notifications); such reports are not typing. */
  onFocus?(focused: boolean): void;
}

/** A Tab cycling through suggestions (see completion.ts). */
export interface TabCycle {
  base: EditorState;
  completion: Completion;
  index: number;
  after: string;
}

/** The session picker: the sessions and the one chosen. */
export interface PickerState {
  sessions: SessionSummary[];
  index: number;
}

/** The chat's state and setters, as App holds them in one render. */
export interface Chat {
  props: AppProps;
  exit: () => void;
  /** Keys are folded into a ref, not into render-time state, so keys arriving in one chunk see each other. */
  input: RefObject<InputState>;
  setInput: (next: InputState) => void;
  busy: RefObject<boolean>;
  /** A prompt (not a slash command) is what keeps the chat busy: a message typed now can wait for it. */
  prompting: RefObject<boolean>;
  mode: RefObject<PermissionMode>;
  setMode: (next: PermissionMode) => void;
  clearScreen: () => void;
  work: <T>(job: () => Promise<T>) => Promise<T | undefined>;
  picker: RefObject<PickerState | null>;
  setPicker: (next: PickerState | null) => void;
  rewind: RefObject<RewindPickerState | null>;
  setRewind: (next: RewindPickerState | null) => void;
  models: RefObject<ModelPickerState | null>;
  setModels: (next: ModelPickerState | null) => void;
  tabbing: RefObject<TabCycle | null>;
  completionSources: Parameters<typeof completionAt>[1];
  setDismissedAt: (text: string | null) => void;
  /** When the permission prompt on screen appeared, so keys typed just before it cannot answer it. */
  permissionShownAt: RefObject<{ callId: string; at: number } | null>;
  columns: number;
  summaryRows: number;
}

function hinted(chat: Chat, hint: string): void {
  chat.setInput({ ...chat.input.current, hint });
}

// What was typed during the prompt and no turn boundary took: sent next when the prompt finished,
// back in the prompt (nothing lost, nothing sent unasked) when it was interrupted or failed.
function afterPrompt(chat: Chat, end: TerminalEvent | undefined) {
  const { session, store } = chat.props;
  const left = session.takePendingNotes?.() ?? [];
  store.update((state) => (state.queued.length === 0 ? state : { ...state, queued: [] }));
  if (left.length === 0) return;
  const text = left.map((note) => note.text).join("\n\n");
  if (end?.type === "done") return submit(chat, text);
  const draft = chat.input.current.editor.text;
  chat.setInput({
    ...chat.input.current,
    editor: editorWith(draft === "" ? text : `${text}\n\n${draft}`),
    hint: "The turn did not finish: your waiting messages are back in the prompt. Enter sends them.",
  });
}

function queueNote(chat: Chat, text: string, kind: NoteKind) {
  const note = chat.props.session.queueNote?.(text, kind) ?? {
    refused: "this session takes no messages during a turn",
  };
  if ("refused" in note) {
    chat.setInput({
      ...chat.input.current,
      editor: editorWith(text),
      hint: `Not sent: ${note.refused}.`,
    });
  }
}

function unqueueLast(chat: Chat) {
  const { session, store } = chat.props;
  const last = store.get().queued.at(-1);
  if (!last) return;
  // Delivered meanwhile: it is the model's now, and shows in the chat.
  if (!session.unqueueNote?.(last.id)) return;
  store.update((state) => ({ ...state, queued: state.queued.filter((n) => n.id !== last.id) }));
  chat.setInput({ ...chat.input.current, editor: editorWith(last.text), hint: null });
}

function submit(chat: Chat, text: string, shown = text) {
  const { session, store } = chat.props;
  if (chat.busy.current) {
    // The keys were read before the chat drew the running turn or command: nothing typed is lost.
    if (chat.prompting.current && !isCommandText(text)) return queueNote(chat, text, "queued");
    const draft = chat.input.current.editor.text;
    chat.setInput({
      ...chat.input.current,
      editor: editorWith(draft === "" ? text : `${text}\n${draft}`),
      hint: chat.prompting.current
        ? COMMAND_WAITS_HINT
        : "A command is still running: press Enter again once it ends.",
    });
    return;
  }
  // A command file of the user's (`.claude/commands/review.md`) goes to the session as a prompt.
  const custom = session.info.extensions?.commands ?? [];
  const command = isCustomCommand(text, custom) ? null : parseCommand(text);
  if (command) {
    if (command.type === "exit") return chat.exit();
    void chat.work(() => runCommand(command, commandContext(chat)));
    return;
  }
  store.update((state) => addEntry(state, { type: "user", text: shown }));
  chat.prompting.current = true;
  void chat
    .work(() => session.submit(text))
    .then((end) => {
      chat.prompting.current = false;
      const last = store.get().transcript.entries.at(-1);
      // Not sent (an @-path that cannot be attached...): the prompt comes back to be fixed. A command
      // file's refusal (it waits for `nex commands approve`) is not fixed by editing: the box stays
      // empty, so the next thing typed is not glued to it.
      const fixable = !isCustomCommand(text, custom);
      if (last?.type === "error" && last.unsent && fixable && chat.input.current.editor.text === "")
        chat.setInput({
          ...chat.input.current,
          editor: editorWith(text),
          hint: "Not sent: fix it, then Enter.",
        });
      afterPrompt(chat, end);
    });
}

/** What a slash command may do to the chat. */
function commandContext(chat: Chat) {
  const { session, store, onSwitch } = chat.props;
  return {
    session,
    store,
    exit: chat.exit,
    clearScreen: chat.clearScreen,
    setMode: chat.setMode,
    mode: chat.mode.current,
    openRewind: (points: RewindPoint[]) => chat.setRewind(openRewindPicker(points)),
    openModels: (state: ModelPickerState) => chat.setModels(state),
    setDraft: (draft: string) =>
      chat.setInput({ ...chat.input.current, editor: editorWith(draft) }),
    ...(onSwitch
      ? {
          // It starts on the newest other session.
          openPicker: (sessions: SessionSummary[]) =>
            chat.setPicker({
              sessions,
              index: Math.max(
                0,
                sessions.findIndex((s) => s.sessionId !== session.info.sessionId),
              ),
            }),
          switchTo: (id: string, line?: string) => {
            onSwitch(id, line);
            chat.exit();
          },
        }
      : {}),
  };
}

// Tab: the one match; else what all matches share; else each match in turn, Tab after Tab.
function complete(chat: Chat) {
  const editor = chat.input.current.editor;
  const cycle = chat.tabbing.current;
  if (cycle && cycle.after === editor.text) {
    const index = (cycle.index + 1) % cycle.completion.items.length;
    const next = applySuggestion(
      cycle.base,
      cycle.completion,
      cycle.completion.items[index]?.insert ?? "",
    );
    chat.tabbing.current = { ...cycle, index, after: next.text };
    return chat.setInput({ ...chat.input.current, editor: next });
  }
  chat.tabbing.current = null;
  const completion = completionAt(editor, chat.completionSources);
  if (!completion) return;
  const only = completion.items.length === 1 ? completion.items[0] : undefined;
  if (only)
    return chat.setInput({
      ...chat.input.current,
      editor: applySuggestion(editor, completion, only.insert),
    });
  const shared = sharedStart(completion.items);
  if (shared.length > completion.to - completion.from)
    return chat.setInput({
      ...chat.input.current,
      editor: applySuggestion(editor, completion, shared),
    });
  const first = applySuggestion(editor, completion, completion.items[0]?.insert ?? "");
  chat.tabbing.current = { base: editor, completion, index: 0, after: first.text };
  chat.setInput({ ...chat.input.current, editor: first });
}

function expandChild(chat: Chat) {
  const { store } = chat.props;
  const ui = store.get();
  if ((ui.transcript.reasoningChars ?? 0) > 0 && ui.status.thinkingSince) {
    const open = !chat.input.current.thinkingOpen;
    return chat.setInput({ ...chat.input.current, thinkingOpen: open });
  }
  const running = runningExpansion(ui.transcript.running);
  if (running !== null)
    return store.update((state) => addEntry(state, { type: "info", tone: "dim", text: running }));
  const text = expansion(ui.transcript.entries);
  if (text === null)
    return hinted(
      chat,
      "Nothing to expand yet: Ctrl-O shows the last command's whole output, or a child agent's steps.",
    );
  store.update((state) => addEntry(state, { type: "info", tone: "dim", text }));
}

function answerWords(request: PendingPermission, reply: PermissionAnswer): string {
  const name = request.name;
  if (reply.type === "allow_once") return `Allowed ${name} once.`;
  if (reply.type === "allow_project") return `Allowed ${name}; saving a rule for this project…`;
  if (reply.type === "allow_session")
    return request.scope
      ? `Allowed ${plainText(request.scope)}.`
      : `Allowed ${name} for the rest of this session.`;
  return `Denied ${name}.`;
}

function answer(chat: Chat, request: PendingPermission, reply: PermissionAnswer): void {
  // A denial shows in the call's own block (the runtime's refusal); an approval has no block of its own.
  chat.props.store.update((state) => {
    const next = answered(state, request.callId);
    if (reply.type === "deny") return next;
    return addEntry(next, { type: "info", text: answerWords(request, reply), tone: "dim" });
  });
  chat.props.session.answerPermission(request.callId, reply);
}

// The whole request goes to the chat above, where the scrollback holds every row of it.
function viewRequest(chat: Chat, request: PendingPermission): void {
  const change = request.preview ? `\n${plainText(request.preview)}` : "";
  const text = `${plainText(request.name)} asks to run, in full:\n${plainText(request.summary)}${change}`;
  chat.props.store.update((state) => addEntry(state, { type: "info", text, tone: "plain" }));
}

function perform(chat: Chat, action: InputAction) {
  switch (action.type) {
    case "submit":
      return submit(chat, action.text, action.shown);
    case "queue":
      return queueNote(chat, action.text, action.kind);
    case "unqueue_last":
      return unqueueLast(chat);
    case "interrupt":
      return chat.props.session.interrupt();
    case "answer":
      return answer(chat, action.request, action.answer);
    case "view_request":
      return viewRequest(chat, action.request);
    case "complete":
      return complete(chat);
    case "dismiss_completion":
      return chat.setDismissedAt(chat.input.current.editor.text);
    case "expand_child":
      return expandChild(chat);
    case "paste_image":
      return void pasteImage(chat);
    case "cycle_mode":
      return chat.setMode(nextMode(chat.mode.current));
    case "exit":
      return chat.exit();
  }
}

/** A key: to the open rewind or session picker, else to the prompt or the permission on screen. */
export function onKey(chat: Chat, typed: string, key: Key) {
  const { session, store } = chat.props;
  const rewinding = chat.rewind.current;
  if (rewinding) {
    const next = rewindKey(rewinding, typed, key);
    if ("state" in next) return chat.setRewind(next.state);
    chat.setRewind(null);
    if (next.chosen !== null) {
      const chosen = next.chosen;
      const setDraft = (draft: string) =>
        chat.setInput({ ...chat.input.current, editor: editorWith(draft) });
      void chat.work(() => doRewind({ session, store, setDraft }, chosen));
    }
    return;
  }
  const choosing = chat.models.current;
  if (choosing) {
    const next = modelPickerKey(choosing, key);
    if ("state" in next) return chat.setModels(next.state);
    chat.setModels(null);
    void chat.work(() => modelChosen(commandContext(chat), choosing, next.chosen));
    return;
  }
  const open = chat.picker.current;
  if (open) {
    const next = pickerKey(open.index, open.sessions.length, key);
    if ("index" in next) return chat.setPicker({ ...open, index: next.index });
    chat.setPicker(null);
    const chosen = next.chosen === null ? null : open.sessions[next.chosen];
    if (chosen && chosen.sessionId !== session.info.sessionId) {
      chat.props.onSwitch?.(chosen.sessionId);
      chat.exit();
    }
    return;
  }
  if (typed === FOCUS_IN || typed === FOCUS_OUT) return chat.props.onFocus?.(typed === FOCUS_IN);
  const { status, permissions } = store.get();
  const permission = permissions[0] ?? null;
  const now = Date.now();
  // A request not rendered yet counts as appearing now.
  const shownAt = chat.permissionShownAt.current;
  const seen = permission && shownAt?.callId === permission.callId;
  const ctx = {
    busy: chat.busy.current,
    requesting: status.request !== null || status.retry !== null,
    permission,
    now,
    permissionShownAt: seen && shownAt ? shownAt.at : now,
    guardMs: chat.props.answerGuardMs ?? answerGuardMs,
    queued: store.get().queued.length,
    permissionWhole:
      permission === null ||
      (shownSummary(permission.summary, chat.columns, chat.summaryRows).hiddenRows === 0 &&
        !isHazard(permission)),
  };
  const result = handleKey(chat.input.current, ctx, typed, key);
  chat.setInput(result.state);
  for (const action of result.actions) perform(chat, action);
}

/** Ctrl-V: the clipboard's image saved and its path put in the prompt at the cursor, or why not. */
async function pasteImage(chat: Chat): Promise<void> {
  const { pasteClipboardImage, promptPath } = await clipboardImage();
  const pasted = await pasteClipboardImage();
  if (!pasted.ok) {
    chat.props.store.update((state) =>
      addEntry(state, { type: "info", text: pasted.message, tone: "warn" }),
    );
    return;
  }
  const editor = chat.input.current.editor;
  const before = editor.text.slice(0, editor.cursor);
  const space = before === "" || /\s$/.test(before) ? "" : " ";
  chat.setInput({
    ...chat.input.current,
    editor: insert(editor, `${space}${promptPath(pasted.path)} `),
    hint: "Pasted the clipboard's image as a file path: it is attached when you send the prompt.",
  });
}

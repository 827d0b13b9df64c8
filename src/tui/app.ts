import { Box, Static, Text, useApp, useInput, useStdout } from "ink";
import React, {
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from "react";
import { formatSize } from "../protocol/counts.ts";
import type {
  NoteKind,
  PermissionAnswer,
  PermissionMode,
  TerminalEvent,
} from "../protocol/index.ts";
import { plainText } from "../protocol/plain-text.ts";
import type { RewindPoint } from "../runtime/history/index.ts";
import type { AgentSession, SessionSummary } from "../runtime/session/index.ts";
import { runCommand } from "./command-runner.ts";
import { isCustomCommand, modeLabel, nextMode, parseCommand } from "./commands.ts";
import {
  applySuggestion,
  type Completion,
  completionAt,
  SuggestionList,
  sharedStart,
  suggestionRows,
} from "./completion.ts";
import {
  EntryView,
  isHazard,
  PermissionView,
  PromptView,
  StatusBar,
  shownPreview,
  shownSummary,
  ToolBlock,
} from "./components/index.ts";
import { type EditorState, editorWith } from "./editor.ts";
import { wrappedRows } from "./fit.ts";
import {
  answerGuardMs,
  COMMAND_WAITS_HINT,
  handleKey,
  type InputAction,
  type InputState,
  initialInput,
  isCommandText,
} from "./keymap.ts";
import { answerText, renderedTail } from "./markdown/index.ts";
import { doRewind } from "./rewind-command.ts";
import {
  openRewindPicker,
  RewindPicker,
  type RewindPickerState,
  rewindKey,
} from "./rewind-picker.ts";
import { pickerKey, SessionPicker } from "./session-picker.ts";
import type { MeterState, UiStore } from "./state/index.ts";
import {
  addEntry,
  answered,
  type Entry,
  initialTranscript,
  type PendingPermission,
  QueuedView,
  queuedRows,
} from "./state/index.ts";
import { FOCUS_IN, FOCUS_OUT } from "./terminal-notify.ts";

const h = React.createElement;

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

/** Committed entries, each written once above the live region: re-renders do not grow with the chat. */
function EntryList(props: { entries: readonly Entry[]; columns: number }): React.ReactElement {
  const items = props.entries as Entry[];
  return h(Static<Entry>, {
    items,
    children: (entry: Entry) => h(EntryView, { key: entry.id, entry, columns: props.columns }),
  });
}

/** The terminal's size, following resizes. */
function useTerminalSize(): { columns: number; rows: number } {
  const { stdout } = useStdout();
  const read = useCallback(
    () => ({ columns: stdout.columns || 80, rows: stdout.rows || 24 }),
    [stdout],
  );
  const [size, setSize] = useState(read);
  useEffect(() => {
    const onResize = () => setSize(read());
    stdout.on("resize", onResize);
    return () => {
      stdout.off("resize", onResize);
    };
  }, [stdout, read]);
  return size;
}

/**
 * A terminal reflows what it holds when its width changes, so the rows of the last live frame are no
 * longer the rows Ink erases: stale frames and doubled lines would stay in the scrollback. Once the
 * width has settled, the screen and scrollback are cleared and the whole chat is printed again at
 * the new width (the transcript is the chat's own record, so nothing of it is lost).
 */
function useRedrawOnWidthChange(columns: number, clear: () => void, reprint: () => void): void {
  const drawnAt = useRef(columns);
  const actions = useRef({ clear, reprint });
  actions.current = { clear, reprint };
  useEffect(() => {
    if (columns === drawnAt.current) return;
    // Only the last of a burst of resizes (a window being dragged) redraws.
    const timer = setTimeout(() => {
      drawnAt.current = columns;
      actions.current.clear();
      actions.current.reprint();
    }, 150);
    return () => clearTimeout(timer);
  }, [columns]);
}

/** Running tool blocks shown in the live region; more are counted on one line. */
const maxLiveTools = 3;

/** Where a command would run and how it is confined, for its prompt. */
function commandPlace(workspace: string, sandbox: MeterState["sandbox"]): string {
  const how =
    sandbox === null || sandbox.state === "active"
      ? `sandboxed (${sandbox?.mode ?? "workspace-write"}, ${sandbox?.network ? "network" : sandbox?.allowHosts?.length ? `network only to ${sandbox.allowHosts.join(", ")}` : "no network"})`
      : "UNSANDBOXED: it can change anything your user can";
  return `in ${plainText(workspace)} · ${how}`;
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

/** The chat, the live region (streaming text, running tools, prompt) and the status bar. */
export function App(props: AppProps): React.ReactElement {
  const { session, store } = props;
  const { exit } = useApp();
  const ui = useSyncExternalStore(store.subscribe, store.get);
  // Keys are folded into a ref, not into render-time state, so keys arriving in one chunk see each other.
  const input = useRef<InputState>(initialInput);
  const [shown, setShown] = useState<InputState>(initialInput);
  const busy = useRef(false);
  // A prompt (not a slash command) is what keeps the chat busy: a message typed now can wait for it.
  const prompting = useRef(false);
  const [busyShown, setBusyShown] = useState(false);
  const [mode, setModeState] = useState<PermissionMode>(session.info.permissionMode);
  const modeRef = useRef(mode);
  const [staticKey, setStaticKey] = useState(0);
  const [picker, setPicker] = useState<{ sessions: SessionSummary[]; index: number } | null>(null);
  const pickerRef = useRef(picker);
  // Esc hid the suggestions for this text; a Tab cycling through them (see completion.ts).
  const [dismissedAt, setDismissedAt] = useState<string | null>(null);
  const tabbing = useRef<{
    base: EditorState;
    completion: Completion;
    index: number;
    after: string;
  } | null>(null);
  const completionSources = useMemo(
    () => ({
      commands: session.info.extensions?.commands ?? [],
      paths: (partial: string) => session.completePath?.(partial) ?? [],
    }),
    [session],
  );
  pickerRef.current = picker;
  const [rewind, setRewind] = useState<RewindPickerState | null>(null);
  const rewindRef = useRef(rewind);
  rewindRef.current = rewind;

  const setInput = useCallback((next: InputState) => {
    input.current = next;
    setShown(next);
  }, []);

  const setMode = useCallback(
    (next: PermissionMode) => {
      session.setPermissionMode(next);
      modeRef.current = next;
      setModeState(next);
      setInput({
        ...input.current,
        hint: `Permission mode: ${next} (${modeLabel(next)}). Shift+Tab cycles it.`,
      });
    },
    [session, setInput],
  );

  const clearScreen = useCallback(() => {
    props.clearScreen();
    store.update((state) => ({
      ...state,
      transcript: initialTranscript,
      meter: { ...state.meter, contextTokens: null },
    }));
    setStaticKey((key) => key + 1);
  }, [props, store]);

  const work = useCallback(
    async <T>(job: () => Promise<T>): Promise<T | undefined> => {
      busy.current = true;
      setBusyShown(true);
      try {
        return await job();
      } catch (error) {
        // The session promises never to reject; if it does, say so rather than crash the terminal.
        const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
        store.update((state) =>
          addEntry(state, {
            type: "error",
            code: "internal",
            title: "nex failed internally (a bug)",
            message,
          }),
        );
      } finally {
        busy.current = false;
        setBusyShown(false);
      }
    },
    [store],
  );

  // What was typed during the prompt and no turn boundary took: sent next when the prompt finished,
  // back in the prompt (nothing lost, nothing sent unasked) when it was interrupted or failed.
  const afterPrompt = (end: TerminalEvent | undefined) => {
    const left = session.takePendingNotes?.() ?? [];
    store.update((state) => (state.queued.length === 0 ? state : { ...state, queued: [] }));
    if (left.length === 0) return;
    const text = left.map((note) => note.text).join("\n\n");
    if (end?.type === "done") return submit(text);
    const draft = input.current.editor.text;
    setInput({
      ...input.current,
      editor: editorWith(draft === "" ? text : `${text}\n\n${draft}`),
      hint: "The turn did not finish: your waiting messages are back in the prompt. Enter sends them.",
    });
  };

  const queueNote = (text: string, kind: NoteKind) => {
    const note = session.queueNote?.(text, kind) ?? {
      refused: "this session takes no messages during a turn",
    };
    if ("refused" in note) {
      setInput({
        ...input.current,
        editor: editorWith(text),
        hint: `Not sent: ${note.refused}.`,
      });
    }
  };

  const unqueueLast = () => {
    const last = store.get().queued.at(-1);
    if (!last) return;
    // Delivered meanwhile: it is the model's now, and shows in the chat.
    if (!session.unqueueNote?.(last.id)) return;
    store.update((state) => ({ ...state, queued: state.queued.filter((n) => n.id !== last.id) }));
    setInput({ ...input.current, editor: editorWith(last.text), hint: null });
  };

  const submit = (text: string, shown = text) => {
    if (busy.current) {
      // The keys were read before the chat drew the running turn or command: nothing typed is lost.
      if (prompting.current && !isCommandText(text)) return queueNote(text, "queued");
      const draft = input.current.editor.text;
      setInput({
        ...input.current,
        editor: editorWith(draft === "" ? text : `${text}\n${draft}`),
        hint: prompting.current
          ? COMMAND_WAITS_HINT
          : "A command is still running: press Enter again once it ends.",
      });
      return;
    }
    // A command file of the user's (`.claude/commands/review.md`) goes to the session as a prompt.
    const custom = session.info.extensions?.commands ?? [];
    const command = isCustomCommand(text, custom) ? null : parseCommand(text);
    if (command) {
      if (command.type === "exit") return exit();
      const ctx = {
        session,
        store,
        exit,
        clearScreen,
        setMode,
        mode: modeRef.current,
        openRewind: (points: RewindPoint[]) => setRewind(openRewindPicker(points)),
        setDraft: (draft: string) => setInput({ ...input.current, editor: editorWith(draft) }),
        ...(props.onSwitch
          ? {
              // It starts on the newest other session.
              openPicker: (sessions: SessionSummary[]) =>
                setPicker({
                  sessions,
                  index: Math.max(
                    0,
                    sessions.findIndex((s) => s.sessionId !== session.info.sessionId),
                  ),
                }),
              switchTo: (id: string, line?: string) => {
                props.onSwitch?.(id, line);
                exit();
              },
            }
          : {}),
      };
      void work(() => runCommand(command, ctx));
      return;
    }
    store.update((state) => addEntry(state, { type: "user", text: shown }));
    prompting.current = true;
    void work(() => session.submit(text)).then((end) => {
      prompting.current = false;
      afterPrompt(end);
    });
  };

  // Tab: the one match; else what all matches share; else each match in turn, Tab after Tab.
  const complete = () => {
    const editor = input.current.editor;
    const cycle = tabbing.current;
    if (cycle && cycle.after === editor.text) {
      const index = (cycle.index + 1) % cycle.completion.items.length;
      const next = applySuggestion(
        cycle.base,
        cycle.completion,
        cycle.completion.items[index]?.insert ?? "",
      );
      tabbing.current = { ...cycle, index, after: next.text };
      return setInput({ ...input.current, editor: next });
    }
    tabbing.current = null;
    const completion = completionAt(editor, completionSources);
    if (!completion) return;
    const only = completion.items.length === 1 ? completion.items[0] : undefined;
    if (only)
      return setInput({
        ...input.current,
        editor: applySuggestion(editor, completion, only.insert),
      });
    const shared = sharedStart(completion.items);
    if (shared.length > completion.to - completion.from)
      return setInput({ ...input.current, editor: applySuggestion(editor, completion, shared) });
    const first = applySuggestion(editor, completion, completion.items[0]?.insert ?? "");
    tabbing.current = { base: editor, completion, index: 0, after: first.text };
    setInput({ ...input.current, editor: first });
  };

  // The steps of the latest child agent, in full, below: the scrollback keeps its block as it was.
  const expandChild = () => {
    const entries = store.get().transcript.entries;
    const last = [...entries]
      .reverse()
      .find(
        (e) =>
          e.type === "tool" && (e.child || (e.name === "bash" && e.outcome?.type === "result")),
      );
    if (last?.type === "tool" && !last.child && last.outcome?.type === "result") {
      // The latest command's whole result, as the model got it (a long one names its stored copy).
      const all = plainText(last.outcome.content).split("\n");
      const shown = all.slice(-400);
      const text = [
        `$ ${plainText(String(last.args.command ?? ""))}`,
        ...(all.length > shown.length ? [`… ${all.length - shown.length} earlier lines`] : []),
        ...shown,
      ].join("\n");
      store.update((state) => addEntry(state, { type: "info", tone: "dim", text }));
      return;
    }
    const child = last?.type === "tool" ? last.child : undefined;
    if (!child) {
      setInput({
        ...input.current,
        hint: "Nothing to expand yet: Ctrl-O shows the last command's whole output, or a child agent's steps.",
      });
      return;
    }
    const hidden = child.count - child.steps.length;
    const text = [
      `${child.who}, every step:`,
      ...(hidden > 0 ? [`… ${hidden} earlier steps not kept`] : []),
      ...child.steps.map((step, i) => `${hidden + i + 1}. ${plainText(step)}`),
    ].join("\n");
    store.update((state) => addEntry(state, { type: "info", tone: "dim", text }));
  };

  const answer = (request: PendingPermission, reply: PermissionAnswer) => {
    // A denial shows in the call's own block (the runtime's refusal); an approval has no block of its own.
    store.update((state) => {
      const next = answered(state, request.callId);
      if (reply.type === "deny") return next;
      return addEntry(next, { type: "info", text: answerWords(request, reply), tone: "dim" });
    });
    session.answerPermission(request.callId, reply);
  };

  // The whole request goes to the chat above, where the scrollback holds every row of it.
  const viewRequest = (request: PendingPermission) => {
    const change = request.preview ? `\n${plainText(request.preview)}` : "";
    const text = `${plainText(request.name)} asks to run, in full:\n${plainText(request.summary)}${change}`;
    store.update((state) => addEntry(state, { type: "info", text, tone: "plain" }));
  };

  const perform = (action: InputAction) => {
    switch (action.type) {
      case "submit":
        return submit(action.text, action.shown);
      case "queue":
        return queueNote(action.text, action.kind);
      case "unqueue_last":
        return unqueueLast();
      case "interrupt":
        return session.interrupt();
      case "answer":
        return answer(action.request, action.answer);
      case "view_request":
        return viewRequest(action.request);
      case "complete":
        return complete();
      case "dismiss_completion":
        return setDismissedAt(input.current.editor.text);
      case "expand_child":
        return expandChild();
      case "cycle_mode":
        return setMode(nextMode(modeRef.current));
      case "exit":
        return exit();
    }
  };

  const { columns, rows } = useTerminalSize();
  useRedrawOnWidthChange(columns, props.clearScreen, () => setStaticKey((key) => key + 1));
  const summaryRows = Math.max(1, Math.floor(rows / 4));

  // When the permission prompt on screen appeared, so keys typed just before it cannot answer it.
  const pendingId = ui.permissions[0]?.callId ?? null;
  const shownAt = useRef<{ callId: string; at: number } | null>(null);
  useEffect(() => {
    if (pendingId !== null) shownAt.current = { callId: pendingId, at: Date.now() };
  }, [pendingId]);

  useInput((typed, key) => {
    const rewinding = rewindRef.current;
    if (rewinding) {
      const next = rewindKey(rewinding, typed, key);
      if ("state" in next) return setRewind(next.state);
      setRewind(null);
      if (next.chosen !== null) {
        const chosen = next.chosen;
        const setDraft = (draft: string) =>
          setInput({ ...input.current, editor: editorWith(draft) });
        void work(() => doRewind({ session, store, setDraft }, chosen));
      }
      return;
    }
    const open = pickerRef.current;
    if (open) {
      const next = pickerKey(open.index, open.sessions.length, key);
      if ("index" in next) return setPicker({ ...open, index: next.index });
      setPicker(null);
      const chosen = next.chosen === null ? null : open.sessions[next.chosen];
      if (chosen && chosen.sessionId !== session.info.sessionId) {
        props.onSwitch?.(chosen.sessionId);
        exit();
      }
      return;
    }
    if (typed === FOCUS_IN || typed === FOCUS_OUT) return props.onFocus?.(typed === FOCUS_IN);
    const { status, permissions } = store.get();
    const permission = permissions[0] ?? null;
    const now = Date.now();
    // A request not rendered yet counts as appearing now.
    const seen = permission && shownAt.current?.callId === permission.callId;
    const ctx = {
      busy: busy.current,
      requesting: status.request !== null || status.retry !== null,
      permission,
      now,
      permissionShownAt: seen && shownAt.current ? shownAt.current.at : now,
      guardMs: props.answerGuardMs ?? answerGuardMs,
      queued: store.get().queued.length,
      permissionWhole:
        permission === null ||
        (shownSummary(permission.summary, columns, summaryRows).hiddenRows === 0 &&
          !isHazard(permission)),
    };
    const result = handleKey(input.current, ctx, typed, key);
    setInput(result.state);
    for (const action of result.actions) perform(action);
  });

  const { transcript, status, meter } = ui;
  // While Tab cycles, the list it cycles through; else what completes the word being typed.
  const cycling = tabbing.current?.after === shown.editor.text ? tabbing.current : null;
  const typedCompletion = useMemo(
    () =>
      dismissedAt === shown.editor.text || picker || rewind || ui.permissions.length > 0
        ? null
        : completionAt(shown.editor, completionSources),
    [shown.editor, dismissedAt, picker, rewind, ui.permissions.length, completionSources],
  );
  const suggestions = cycling ? cycling.completion : typedCompletion;
  const chosen = cycling ? cycling.index : 0;
  const pending = ui.permissions[0];
  // Every live part has a row budget: the live region must stay shorter than the terminal (see fit.ts).
  const editorRows = Math.max(1, Math.min(8, Math.floor(rows / 4)));
  const summary = pending ? shownSummary(pending.summary, columns, summaryRows) : null;
  // The change's diff gets what is left of half the terminal.
  const previewBudget = Math.max(3, Math.floor(rows / 2) - summaryRows);
  const preview = pending ? shownPreview(pending.preview, previewBudget) : null;
  const promptRows = summary
    ? 6 +
      (preview ? preview.lines.length + (preview.hidden > 0 ? 1 : 0) : 0) +
      wrappedRows(summary.text, columns - 4) +
      (summary.hiddenRows > 0 ? 1 : 0) +
      (shown.reason ? 4 : shown.hint ? 1 : 0)
    : 2 +
      Math.min(shown.editor.text.split("\n").length, editorRows) +
      queuedRows(ui.queued) +
      suggestionRows(suggestions);
  const tools = transcript.running.slice(-maxLiveTools);
  const hiddenTools = transcript.running.length - tools.length;
  const receiving = transcript.receiving.slice(-2);
  const fixedRows =
    1 +
    promptRows +
    tools.reduce((rows, tool) => rows + 4 + (tool.child ? 4 : 0), 0) +
    (hiddenTools > 0 ? 1 : 0) +
    receiving.length +
    1 +
    3;
  const streamRows = rows - fixedRows;
  const streaming =
    transcript.streaming.trim() !== "" && streamRows > 0
      ? renderedTail(answerText(transcript.streaming, columns), columns, streamRows)
      : null;
  return h(
    Box,
    { flexDirection: "column" },
    h(EntryList, { key: staticKey, entries: transcript.entries, columns }),
    streaming !== null
      ? h(Box, { marginTop: transcript.streamingContinues ? 0 : 1 }, h(Text, null, streaming))
      : null,
    hiddenTools > 0
      ? h(Text, { key: "more", dimColor: true }, `  … ${hiddenTools} more tool calls running`)
      : null,
    ...tools.map((entry) => h(ToolBlock, { key: entry.callId, entry, columns })),
    ...receiving.map((call) =>
      h(
        Text,
        { key: `r${call.index}`, dimColor: true, wrap: "truncate-end" },
        `  receiving ${plainText(call.name ?? "tool call")} arguments… ${formatSize(call.bytes)}`,
      ),
    ),
    h(Box, { marginTop: 1 }),
    rewind
      ? h(RewindPicker, { state: rewind, columns, maxRows: Math.max(3, Math.floor(rows / 2)) })
      : picker
        ? h(SessionPicker, {
            sessions: picker.sessions,
            index: picker.index,
            columns,
            maxRows: Math.max(3, Math.floor(rows / 2)),
            current: session.info.sessionId,
          })
        : pending
          ? h(PermissionView, {
              request: pending,
              queued: ui.permissions.length - 1,
              reason: shown.reason,
              columns,
              maxSummaryRows: summaryRows,
              maxPreviewRows: previewBudget,
              where: commandPlace(session.info.workspace, meter.sandbox),
              note: shown.hint,
            })
          : h(
              Box,
              { flexDirection: "column" },
              h(QueuedView, { queued: ui.queued, columns }),
              h(PromptView, {
                editor: shown.editor,
                maxRows: editorRows,
                placeholder: busyShown
                  ? "Enter: sent with the next tool result · Alt+Enter: steer · Esc interrupts"
                  : "Ask nex · /help for commands",
              }),
              h(SuggestionList, { completion: suggestions, chosen, columns }),
            ),
    h(StatusBar, { status, meter, mode, hint: shown.hint, columns }),
  );
}

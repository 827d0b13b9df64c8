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
import type { PermissionMode } from "../protocol/index.ts";
import { plainText } from "../protocol/plain-text.ts";
import type { AgentSession } from "../runtime/session/index.ts";
import {
  type AppProps,
  type Chat,
  onKey,
  type PickerState,
  type TabCycle,
} from "./chat-actions.ts";

export type { AppProps } from "./chat-actions.ts";

import {
  ModelPicker,
  type ModelPickerState,
  modeLabel,
  RewindPicker,
  type RewindPickerState,
  SessionPicker,
} from "./commands/index.ts";
import {
  EntryView,
  PermissionView,
  PromptView,
  StatusBar,
  ThinkingLine,
  ToolBlock,
} from "./components/index.ts";
import {
  busyKeysGuide,
  type Completion,
  completionAt,
  type InputState,
  initialInput,
  SuggestionList,
} from "./input/index.ts";
import { busyGuideShown, type LiveLayout, liveLayout, summaryRowsFor } from "./live-layout.ts";
import {
  addEntry,
  type Entry,
  initialTranscript,
  type MeterState,
  QueuedView,
  type UiState,
  type UiStore,
} from "./state/index.ts";

const h = React.createElement;

/** Committed entries, each written once above the live region: re-renders do not grow with the chat. */
function EntryList(props: { entries: readonly Entry[]; columns: number }): React.ReactElement {
  const items = props.entries as Entry[];
  return h(Static<Entry>, {
    items,
    // Each entry is laid out at the terminal's width: Static's box otherwise takes its widest child's
    // width, and one line too wide made every entry wrap past the terminal's edge.
    children: (entry: Entry) =>
      h(
        Box,
        { key: entry.id, width: props.columns, flexDirection: "column" },
        h(EntryView, { entry, columns: props.columns }),
      ),
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

/** Where a command would run and how it is confined, for its prompt. */
function commandPlace(workspace: string, sandbox: MeterState["sandbox"]): string {
  const how =
    sandbox === null || sandbox.state === "active"
      ? `sandboxed (${sandbox?.mode ?? "workspace-write"}, ${sandbox?.network ? "network" : sandbox?.allowHosts?.length ? `network only to ${sandbox.allowHosts.join(", ")}` : "no network"})`
      : "UNSANDBOXED: it can change anything your user can";
  return `in ${plainText(workspace)} · ${how}`;
}

/** When the permission prompt on screen appeared, so keys typed just before it cannot answer it. */
function usePermissionShownAt(pendingId: string | null) {
  const shownAt = useRef<{ callId: string; at: number } | null>(null);
  useEffect(() => {
    if (pendingId !== null) shownAt.current = { callId: pendingId, at: Date.now() };
  }, [pendingId]);
  return shownAt;
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
  const prompting = useRef(false);
  const [busyShown, setBusyShown] = useState(false);
  const [mode, setModeState] = useState<PermissionMode>(session.info.permissionMode);
  const modeRef = useRef(mode);
  const [staticKey, setStaticKey] = useState(0);
  const [picker, setPicker] = useState<PickerState | null>(null);
  const pickerRef = useLatest(picker);
  // Esc hid the suggestions for this text; a Tab cycling through them (see completion.ts).
  const [dismissedAt, setDismissedAt] = useState<string | null>(null);
  const tabbing = useRef<TabCycle | null>(null);
  const completionSources = useMemo(
    () => ({
      commands: session.info.extensions?.commands ?? [],
      paths: (partial: string) => session.completePath?.(partial) ?? [],
    }),
    [session],
  );
  const [rewind, setRewind] = useState<RewindPickerState | null>(null);
  const rewindRef = useLatest(rewind);
  const [models, setModels] = useState<ModelPickerState | null>(null);
  const modelsRef = useLatest(models);

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
  const work = useWork(store, busy, setBusyShown);

  const { columns, rows } = useTerminalSize();
  useRedrawOnWidthChange(columns, props.clearScreen, () => setStaticKey((key) => key + 1));

  const shownAt = usePermissionShownAt(ui.permissions[0]?.callId ?? null);

  const chat: Chat = {
    props,
    exit,
    input,
    setInput,
    busy,
    prompting,
    mode: modeRef,
    setMode,
    clearScreen,
    work,
    picker: pickerRef,
    setPicker,
    rewind: rewindRef,
    setRewind,
    models: modelsRef,
    setModels,
    tabbing,
    completionSources,
    setDismissedAt,
    permissionShownAt: shownAt,
    columns,
    summaryRows: summaryRowsFor(rows),
  };
  useInput((typed, key) => onKey(chat, typed, key));

  const cycling = tabbing.current?.after === shown.editor.text ? tabbing.current : null;
  const hidden = dismissedAt === shown.editor.text || !!picker || !!rewind || !!models;
  const suggestions = useSuggestions(
    shown,
    cycling,
    hidden || ui.permissions.length > 0,
    completionSources,
  );
  const layout = liveLayout(ui, shown, suggestions, { columns, rows }, busyShown);
  const { transcript, status, meter } = ui;
  return h(
    Box,
    { flexDirection: "column" },
    h(EntryList, { key: staticKey, entries: transcript.entries, columns }),
    ...liveParts(layout, transcript.streamingContinues, columns),
    h(Box, { marginTop: 1 }),
    bottomPane({
      session,
      ui,
      shown,
      picker,
      rewind,
      models,
      layout,
      size: { columns, rows },
      busy: busyShown,
      suggestions,
      chosen: cycling ? cycling.index : 0,
    }),
    h(StatusBar, { status, meter, mode, hint: shown.hint, columns }),
  );
}

/** A ref that holds the value of the latest render: key handlers read what is on screen now. */
function useLatest<T>(value: T): React.RefObject<T> {
  const ref = useRef(value);
  ref.current = value;
  return ref;
}

/** While Tab cycles, the list it cycles through; else what completes the word being typed. */
function useSuggestions(
  shown: InputState,
  cycling: TabCycle | null,
  hidden: boolean,
  sources: Parameters<typeof completionAt>[1],
): Completion | null {
  const typed = useMemo(
    () => (hidden ? null : completionAt(shown.editor, sources)),
    [shown.editor, hidden, sources],
  );
  return cycling ? cycling.completion : typed;
}

/** The answer streaming in, the running tools and the calls whose arguments are arriving. */
function liveParts(
  layout: LiveLayout,
  streamingContinues: boolean,
  columns: number,
): React.ReactNode[] {
  return [
    layout.thinking ? h(ThinkingLine, { key: "thinking", ...layout.thinking, columns }) : null,
    layout.streaming !== null
      ? h(Box, { marginTop: streamingContinues ? 0 : 1 }, h(Text, null, layout.streaming))
      : null,
    layout.hiddenTools > 0
      ? h(
          Text,
          { key: "more", dimColor: true },
          `  … ${layout.hiddenTools} more tool calls running`,
        )
      : null,
    ...layout.tools.map((entry) => h(ToolBlock, { key: entry.callId, entry, columns })),
    ...layout.receiving.map((call) =>
      h(
        Text,
        { key: `r${call.index}`, dimColor: true, wrap: "truncate-end" },
        `  receiving ${plainText(call.name ?? "tool call")} arguments… ${formatSize(call.bytes)}`,
      ),
    ),
  ];
}

/** Runs a command or a prompt with the chat busy; a failure the session promised never to have is shown. */
function useWork(
  store: UiStore,
  busy: React.RefObject<boolean>,
  setBusyShown: (busy: boolean) => void,
): <T>(job: () => Promise<T>) => Promise<T | undefined> {
  return useCallback(
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
    [store, busy, setBusyShown],
  );
}

/** Below the live parts: the rewind or session picker, the permission prompt, or the prompt. */
function bottomPane(view: {
  session: AgentSession;
  ui: UiState;
  shown: InputState;
  picker: PickerState | null;
  rewind: RewindPickerState | null;
  models: ModelPickerState | null;
  layout: LiveLayout;
  size: { columns: number; rows: number };
  busy: boolean;
  suggestions: Completion | null;
  chosen: number;
}): React.ReactElement {
  const { session, ui, shown, layout } = view;
  const { columns, rows } = view.size;
  const pending = ui.permissions[0];
  if (view.rewind)
    return h(RewindPicker, {
      state: view.rewind,
      columns,
      maxRows: Math.max(3, Math.floor(rows / 2)),
    });
  if (view.models)
    return h(ModelPicker, {
      state: view.models,
      columns,
      maxRows: Math.max(3, Math.floor(rows / 2)),
    });
  if (view.picker)
    return h(SessionPicker, {
      sessions: view.picker.sessions,
      index: view.picker.index,
      columns,
      maxRows: Math.max(3, Math.floor(rows / 2)),
      current: session.info.sessionId,
    });
  if (pending)
    return h(PermissionView, {
      request: pending,
      queued: ui.permissions.length - 1,
      reason: shown.reason,
      columns,
      maxSummaryRows: layout.summaryRows,
      maxPreviewRows: layout.previewBudget,
      where: commandPlace(session.info.workspace, ui.meter.sandbox),
      note: shown.hint,
    });
  return h(
    Box,
    { flexDirection: "column" },
    h(QueuedView, { queued: ui.queued, columns }),
    h(PromptView, {
      editor: shown.editor,
      maxRows: layout.editorRows,
      columns,
      placeholder: view.busy
        ? "Enter: sent with the next tool result · Alt+Enter: steer · Esc interrupts"
        : "Ask nex · /help for commands",
    }),
    busyGuideShown(shown, view.busy)
      ? h(Text, { dimColor: true, wrap: "truncate-end" }, busyKeysGuide(shown))
      : null,
    h(SuggestionList, { completion: view.suggestions, chosen: view.chosen, columns }),
  );
}

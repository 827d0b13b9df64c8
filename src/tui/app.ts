import { Box, type Key, Static, Text, useApp, useInput } from "ink";
import React, { useCallback, useRef, useState, useSyncExternalStore } from "react";
import type { PermissionAnswer, PermissionMode } from "../protocol/index.ts";
import type { AgentSession } from "../runtime/agent-session.ts";
import { runCommand } from "./command-runner.ts";
import { modeLabel, nextMode, parseCommand } from "./commands.ts";
import { EntryView, ToolBlock } from "./components/entry-view.ts";
import { PermissionView } from "./components/permission-view.ts";
import { PromptView } from "./components/prompt-view.ts";
import { StatusBar } from "./components/status-bar.ts";
import * as edit from "./editor.ts";
import * as hist from "./history.ts";
import type { UiStore } from "./store.ts";
import { type Entry, initialTranscript } from "./transcript.ts";
import { addEntry, answered } from "./ui-state.ts";

const h = React.createElement;

/** Properties of the TUI's root component. */
export interface AppProps {
  session: AgentSession;
  store: UiStore;
  /** Erases the terminal (for /clear). */
  clearScreen(): void;
}

/** Committed entries, each written once above the live region: re-renders do not grow with the chat. */
function EntryList(props: { entries: readonly Entry[] }): React.ReactElement {
  const items = props.entries as Entry[];
  return h(Static<Entry>, {
    items,
    children: (entry: Entry) => h(EntryView, { key: entry.id, entry }),
  });
}

function formatKb(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

/** The chat, the live region (streaming text, running tools, prompt) and the status bar. */
export function App(props: AppProps): React.ReactElement {
  const { session, store } = props;
  const { exit } = useApp();
  const ui = useSyncExternalStore(store.subscribe, store.get);
  const [editor, setEditor] = useState(edit.emptyEditor);
  const [history, setHistory] = useState(hist.emptyHistory);
  const [reason, setReason] = useState<edit.EditorState | null>(null);
  const [busy, setBusy] = useState(false);
  const [hint, setHint] = useState<string | null>(null);
  const [exitArmed, setExitArmed] = useState(false);
  const [mode, setModeState] = useState<PermissionMode>(session.info.permissionMode);
  const [staticKey, setStaticKey] = useState(0);
  // Guards against a second submit in the same tick, before `busy` re-renders.
  const running = useRef(false);

  const setMode = useCallback(
    (next: PermissionMode) => {
      session.setPermissionMode(next);
      setModeState(next);
    },
    [session],
  );

  const clearScreen = useCallback(() => {
    props.clearScreen();
    store.update((state) => ({ ...state, transcript: initialTranscript }));
    setStaticKey((key) => key + 1);
  }, [props, store]);

  const work = useCallback(async (job: () => Promise<unknown>) => {
    running.current = true;
    setBusy(true);
    try {
      await job();
    } finally {
      running.current = false;
      setBusy(false);
    }
  }, []);

  const submit = (text: string) => {
    if (text.trim() === "") return;
    if (running.current) {
      setHint("A turn is still running: wait for it, or press Esc to interrupt it.");
      return;
    }
    setHistory((state) => hist.remember(state, text));
    setEditor(edit.emptyEditor);
    const command = parseCommand(text);
    if (command) {
      if (command.type === "exit") return exit();
      void work(() => runCommand(command, { session, store, exit, clearScreen, setMode, mode }));
      return;
    }
    store.update((state) => addEntry(state, { type: "user", text }));
    void work(() => session.submit(text));
  };

  const answer = (callId: string, name: string, reply: PermissionAnswer) => {
    const words =
      reply.type === "allow_once"
        ? `Allowed ${name} once.`
        : reply.type === "allow_session"
          ? `Allowed ${name} for the rest of this session.`
          : `Denied ${name}${reply.reason ? `: ${reply.reason}` : "."}`;
    store.update((state) =>
      addEntry(answered(state, callId), {
        type: "info",
        text: words,
        tone: reply.type === "deny" ? "warn" : "dim",
      }),
    );
    setReason(null);
    session.answerPermission(callId, reply);
  };

  const interrupt = () => {
    session.interrupt();
    setReason(null);
    setHint(null);
  };

  const editKey = (state: edit.EditorState, input: string, key: Key): edit.EditorState | null => {
    // Terminals send DEL (0x7f) for Backspace, which Ink names "delete": both erase backwards.
    if (key.backspace || key.delete) return edit.backspace(state);
    if (key.leftArrow) return edit.left(state);
    if (key.rightArrow) return edit.right(state);
    if (key.home || (key.ctrl && input === "a")) return edit.home(state);
    if (key.end || (key.ctrl && input === "e")) return edit.end(state);
    if (key.ctrl && input === "w") return edit.deleteWordBack(state);
    if (key.ctrl && input === "u") return edit.deleteToLineStart(state);
    if (key.ctrl && input === "d") return edit.deleteForward(state);
    if (key.ctrl || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown)
      return null;
    if (input === "") return null;
    return edit.insert(state, input);
  };

  useInput((input, key) => {
    const isCtrlC = key.ctrl && input === "c";
    if (!isCtrlC && exitArmed) setExitArmed(false);
    const pending = ui.permissions[0];

    if (isCtrlC) {
      if (busy || pending || ui.status.request || ui.status.retry) return interrupt();
      if (editor.text !== "") return setEditor(edit.emptyEditor);
      if (exitArmed) return exit();
      setExitArmed(true);
      return setHint("Press Ctrl-C again to exit.");
    }
    if (key.escape) {
      if (reason !== null) return setReason(null);
      if (busy || pending) return interrupt();
      return;
    }
    if (key.tab && key.shift) {
      const next = nextMode(mode);
      setMode(next);
      return setHint(`Permission mode: ${next} (${modeLabel(next)}).`);
    }

    if (pending && reason === null) {
      const choice = input.toLowerCase();
      if (choice === "y") return answer(pending.callId, pending.name, { type: "allow_once" });
      if (choice === "a") return answer(pending.callId, pending.name, { type: "allow_session" });
      if (choice === "n") return setReason(edit.emptyEditor);
      return;
    }
    if (pending && reason !== null) {
      if (key.return) {
        const text = reason.text.trim();
        return answer(
          pending.callId,
          pending.name,
          text === "" ? { type: "deny" } : { type: "deny", reason: text },
        );
      }
      const next = editKey(reason, input, key);
      if (next) setReason(next);
      return;
    }

    setHint(null);
    if (key.return) {
      if (key.meta || key.shift) return setEditor(edit.insert(editor, "\n"));
      const result = edit.enter(editor);
      if (result.type === "newline") return setEditor(result.state);
      return submit(result.text);
    }
    if (key.upArrow) {
      const moved = edit.lineUp(editor);
      if (moved) return setEditor(moved);
      const back = hist.previous(history, editor.text);
      if (!back) return;
      setHistory(back.state);
      return setEditor(edit.editorWith(back.text));
    }
    if (key.downArrow) {
      const moved = edit.lineDown(editor);
      if (moved) return setEditor(moved);
      const forward = hist.next(history);
      if (!forward) return;
      setHistory(forward.state);
      return setEditor(edit.editorWith(forward.text));
    }
    const next = editKey(editor, input, key);
    if (next) setEditor(next);
  });

  const { transcript, status, meter } = ui;
  const pending = ui.permissions[0];
  return h(
    Box,
    { flexDirection: "column" },
    h(EntryList, { key: staticKey, entries: transcript.entries }),
    transcript.streaming.trim() !== ""
      ? h(
          Box,
          { marginTop: transcript.streamingContinues ? 0 : 1 },
          h(Text, null, transcript.streaming),
        )
      : null,
    ...transcript.running.map((entry) => h(ToolBlock, { key: entry.callId, entry })),
    ...transcript.receiving.map((call) =>
      h(
        Text,
        { key: `r${call.index}`, dimColor: true },
        `  receiving ${call.name ?? "tool call"} arguments… ${formatKb(call.bytes)}`,
      ),
    ),
    h(Box, { marginTop: 1 }),
    pending
      ? h(PermissionView, { request: pending, queued: ui.permissions.length - 1, reason })
      : h(PromptView, {
          editor,
          placeholder: busy
            ? "Esc interrupts · type your next prompt"
            : "Ask nex · /help for commands",
        }),
    h(StatusBar, { status, meter, mode, hint }),
  );
}

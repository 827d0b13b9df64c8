import { render } from "ink";
import React from "react";
import type { AgentEvent, Message } from "../protocol/index.ts";
import { plainText } from "../protocol/plain-text.ts";
import { usageLine } from "../runtime/config/index.ts";
import type { AgentSession } from "../runtime/session/index.ts";
import { onStopSignals, SIGNAL_EXIT, type StopSignal } from "../runtime/session/index.ts";
import { App } from "./app.ts";
import { loadMarkdown } from "./markdown/index.ts";
import { addEntry, createStore, initialUi, type UiState } from "./state/index.ts";
import { startNotifier } from "./terminal-notify.ts";

/** Options of the interactive terminal UI. */
export interface TuiOptions {
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** The sentence saying how a resumed journal was made to fit (truncation or compaction). */
  resumeLine?: string;
  /** Quiet ms before a permission prompt takes an answer key (default answerGuardMs, 300). */
  answerGuardMs?: number;
  /** Called when the user picks another session (/resume): the chat exits so its host reopens that one. */
  onSwitch?(sessionId: string, line?: string): void;
  /** The environment that says which terminal this is (notifications). */
  env?: Record<string, string | undefined>;
}

function welcome(state: UiState, session: AgentSession, resumeLine: string | undefined): UiState {
  const { info } = session;
  const head = addEntry(state, {
    type: "info",
    tone: "dim",
    text: `nex · ${info.model} at ${info.host} · ${info.workspace}\nsession ${info.sessionId} · /help lists commands · Ctrl-C twice exits`,
  });
  const recalled = recall(head, session.history());
  return resumeLine
    ? // Routine (the window's source, how a resumed chat was fitted): plain, not a yellow warning.
      addEntry(recalled, { type: "info", tone: "plain", text: resumeLine })
    : recalled;
}

// A resumed conversation shows its last few exchanges, so the user sees where it left off.
const RECALLED_MESSAGES = 6;

function recall(state: UiState, history: readonly Message[]): UiState {
  const shown = history.filter((m) => m.type !== "tool_result").slice(-RECALLED_MESSAGES);
  let next = state;
  if (history.length > shown.length && shown.length > 0) {
    next = addEntry(next, {
      type: "info",
      tone: "dim",
      text: "… earlier messages of this session",
    });
  }
  for (const message of shown) {
    if (message.type === "user") next = addEntry(next, { type: "user", text: message.text });
    else if (message.type === "assistant") {
      if (message.text.trim())
        next = addEntry(next, { type: "assistant", text: message.text.trim(), continued: false });
      const calls = message.toolCalls.map((call) => call.name).join(", ");
      if (calls) next = addEntry(next, { type: "info", tone: "dim", text: `(called ${calls})` });
    }
  }
  return next;
}

/**
 * Runs the interactive UI over `session` until the user exits; returns the process exit code.
 * It reads only the session's events and calls only the session's methods.
 */
export async function runTui(session: AgentSession, options: TuiOptions = {}): Promise<number> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  if (!stdin.isTTY) {
    process.stderr.write(
      "nex: the interactive UI needs a terminal, and standard input is not one.\n" +
        "Run nex from a terminal, or pass the prompt as an argument to run it without the UI.\n",
    );
    return 2;
  }
  // The markdown renderer loads off the start-up path; a resumed chat shows its past answers with it.
  const markdown = loadMarkdown();
  if (session.history().length > 0) await markdown;
  const store = createStore(welcome(initialUi(session.info), session, options.resumeLine));
  // A child's calls the user was asked about: their outcome closes the prompt's block.
  const asked = new Set<string>();
  const unsubscribe = session.subscribe((event) => {
    if (event.type === "permission_requested" && event.agent) asked.add(event.callId);
    const answered =
      (event.type === "tool_result" || event.type === "tool_call_refused") &&
      asked.delete(event.callId);
    // The outcome of a child's call the user was asked about closes the prompt's own block.
    if (answered) {
      const { agent: _child, ...own } = event;
      store.dispatch(own as AgentEvent);
      return;
    }
    if (event.type === "usage" && event.agent) return;
    store.dispatch(event);
  });
  let switching = false;
  const notifier = startNotifier(session, {
    write: (text) => stdout.write(text),
    env: options.env ?? process.env,
  });
  const instance = render(
    React.createElement(App, {
      session,
      store,
      answerGuardMs: options.answerGuardMs,
      ...(options.onSwitch
        ? {
            onSwitch: (id: string, line?: string) => {
              switching = true;
              options.onSwitch?.(id, line);
            },
          }
        : {}),
      onFocus: notifier.focus,
      clearScreen: () => {
        instance.clear();
        stdout.write("\x1b[2J\x1b[3J\x1b[H");
      },
    }),
    { stdin, stdout, exitOnCtrlC: false, patchConsole: false, kittyKeyboard: { mode: "auto" } },
  );
  // Bracketed paste: a pasted newline then reaches the prompt as text, not as Enter.
  stdout.write("\x1b[?2004h");
  // `kill`, a closed terminal or a Ctrl-C from outside (the UI reads its own Ctrl-C as a key) stop the
  // running task, its commands included, and end the chat; a second signal exits at once.
  let stoppedBy: StopSignal | null = null;
  const stop = (signal: StopSignal): void => {
    stoppedBy ??= signal;
    session.interrupt();
    instance.unmount();
  };
  const stopWatching = onStopSignals((signal, count) => {
    if (count > 1) process.exit(SIGNAL_EXIT[stoppedBy ?? signal]);
    stop(signal);
  });
  // A closed terminal also shows as a failed read of its input (EIO): the same hang-up.
  const onInputError = () => stop("SIGHUP");
  stdin.on("error", onInputError);
  try {
    await instance.waitUntilExit();
    return stoppedBy ? SIGNAL_EXIT[stoppedBy] : 0;
  } finally {
    stopWatching();
    stdin.off("error", onInputError);
    stdout.write("\x1b[?2004l");
    notifier.stop();
    unsubscribe();
    const { status, meter } = store.get();
    if (status.request || status.retry || status.tools.length > 0) session.interrupt();
    store.dispose();
    // Jobs end with the chat: say which, before the way back in.
    for (const line of (await session.stopBackgroundJobs?.()) ?? [])
      stdout.write(`\nStopped background ${plainText(line)}: jobs end with the chat.`);
    await session.close();
    // The way back in, where the user looks last.
    if (meter.inputTokens + meter.outputTokens > 0 && !switching) {
      const price = session.priceOf?.(meter.model) ?? null;
      stdout.write(`\nThis chat: ${usageLine(meter.model, price, meter)}\n`);
    }
    if (session.history().length > 0 && !switching) {
      stdout.write(`\nResume this session with: nex resume ${session.info.sessionId}\n`);
    }
  }
}

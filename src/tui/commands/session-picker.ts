// The session picker of `/resume` and `nex resume`: each saved session by its first prompt, when it
// was last used and its size; Up/Down choose, Enter opens, Esc goes back.
import { Box, render, Text, useApp, useInput } from "ink";
import React, { useEffect, useState } from "react";
import { plainText } from "../../protocol/plain-text.ts";
import type { SessionSummary } from "../../runtime/session/index.ts";
import { fitToWidth, windowAround } from "../fit.ts";

const h = React.createElement;

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString().slice(0, 16).replace("T", " ");
}

/** One row of the picker, cut to the width. */
export function pickerRow(session: SessionSummary, columns: number): string {
  const about = plainText(session.firstPrompt || session.lastMessage || "(no prompt)").replace(
    /\s+/g,
    " ",
  );
  const facts = `${when(session.startedAt)} · ${session.messages} msgs · ${size(session.bytes)}`;
  const room = Math.max(10, columns - facts.length - 6);
  return `${fitToWidth(about, room)}  ${facts}`;
}

/** The list, the chosen row marked. */
export function SessionPicker(props: {
  sessions: readonly SessionSummary[];
  index: number;
  columns: number;
  maxRows: number;
  current?: string;
}): React.ReactElement {
  const { start, end } = windowAround(props.sessions.length, props.index, props.maxRows);
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", borderColor: "cyan", paddingX: 1 },
    h(Text, { bold: true, color: "cyan" }, "Resume a session"),
    ...props.sessions.slice(start, end).map((session, i) => {
      const chosen = start + i === props.index;
      const mark = session.sessionId === props.current ? " (this one)" : "";
      return h(
        Text,
        { key: session.sessionId, inverse: chosen, wrap: "truncate-end" },
        `${chosen ? "›" : " "} ${pickerRow(session, props.columns - 4 - mark.length)}${mark}`,
      );
    }),
    h(Text, { dimColor: true }, "↑/↓ choose · Enter opens it · Esc goes back"),
  );
}

/** Moves the choice, or says what was chosen: a session id, or null for Esc. */
export function pickerKey(
  index: number,
  count: number,
  key: { upArrow?: boolean; downArrow?: boolean; return?: boolean; escape?: boolean },
): { index: number } | { chosen: number | null } {
  if (key.upArrow) return { index: Math.max(0, index - 1) };
  if (key.downArrow) return { index: Math.min(count - 1, index + 1) };
  if (key.return) return { chosen: index };
  if (key.escape) return { chosen: null };
  return { index };
}

function StandalonePicker(props: {
  sessions: readonly SessionSummary[];
  onChosen(id: string | null): void;
}): React.ReactElement {
  const { exit } = useApp();
  const [index, setIndex] = useState(0);
  const [done, setDone] = useState(false);
  // The last frame is empty, so the chat that follows takes the picker's place on the screen.
  useEffect(() => {
    if (done) exit();
  }, [done, exit]);
  useInput((_input, key) => {
    if (done) return;
    const next = pickerKey(index, props.sessions.length, key);
    if ("index" in next) return setIndex(next.index);
    props.onChosen(next.chosen === null ? null : (props.sessions[next.chosen]?.sessionId ?? null));
    setDone(true);
  });
  if (done) return h(Box, null);
  return h(SessionPicker, {
    sessions: props.sessions,
    index,
    columns: process.stdout.columns || 80,
    maxRows: Math.max(3, (process.stdout.rows || 24) - 6),
  });
}

/** `nex resume` with no id: the picker on its own; resolves with the chosen id, or null. */
export async function pickSession(sessions: readonly SessionSummary[]): Promise<string | null> {
  let picked: string | null = null;
  const instance = render(
    h(StandalonePicker, {
      sessions,
      onChosen: (id) => {
        picked = id;
      },
    }),
    { exitOnCtrlC: true, patchConsole: false },
  );
  await instance.waitUntilExit();
  return picked;
}

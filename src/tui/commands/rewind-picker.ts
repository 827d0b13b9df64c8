// `/rewind`'s picker: the session's earlier prompts (first line, time, what changed after each);
// Enter shows what rewinding to before the chosen one restores and asks; y (or Enter) does it,
// n or Esc goes back to the list, Esc there leaves.
import { Box, Text } from "ink";
import React from "react";
import { plainText } from "../../protocol/plain-text.ts";
import { describeRewindPlan, firstLine, type RewindPoint } from "../../runtime/history/index.ts";
import { fitToWidth, windowAround } from "../fit.ts";

const h = React.createElement;

export interface RewindPickerState {
  points: RewindPoint[];
  index: number;
  /** The plan of the chosen point is shown, waiting for a yes. */
  confirming: boolean;
}

/** The picker on the newest prompt. */
export function openRewindPicker(points: RewindPoint[]): RewindPickerState {
  return { points, index: Math.max(0, points.length - 1), confirming: false };
}

/** The next state, or what was decided: a prompt number to rewind to, or null to leave. */
export function rewindKey(
  state: RewindPickerState,
  typed: string,
  key: { upArrow?: boolean; downArrow?: boolean; return?: boolean; escape?: boolean },
): { state: RewindPickerState } | { chosen: number | null } {
  if (state.confirming) {
    if (key.return || typed === "y" || typed === "Y")
      return { chosen: state.points[state.index]?.number ?? null };
    if (key.escape || typed === "n" || typed === "N")
      return { state: { ...state, confirming: false } };
    return { state };
  }
  if (key.upArrow) return { state: { ...state, index: Math.max(0, state.index - 1) } };
  if (key.downArrow)
    return { state: { ...state, index: Math.min(state.points.length - 1, state.index + 1) } };
  if (key.return) return { state: { ...state, confirming: true } };
  if (key.escape) return { chosen: null };
  return { state };
}

function row(point: RewindPoint, columns: number): string {
  const changed =
    point.paths.length === 0
      ? "no file changed after"
      : `${point.paths.length} file${point.paths.length === 1 ? "" : "s"} changed after`;
  const time = new Date(point.time).toTimeString().slice(0, 8);
  const facts = `${time} · ${changed} · ${point.messagesGone} msgs`;
  const room = Math.max(10, columns - facts.length - 8);
  const text = plainText(firstLine(point.text, 200));
  return `${point.number}. ${fitToWidth(text, room)}  ${facts}`;
}

export function RewindPicker(props: {
  state: RewindPickerState;
  columns: number;
  maxRows: number;
}): React.ReactElement {
  const { points, index, confirming } = props.state;
  const frame = { flexDirection: "column" as const, borderStyle: "round" as const, paddingX: 1 };
  const chosen = points[index];
  if (confirming && chosen) {
    return h(
      Box,
      { ...frame, borderColor: "yellow" },
      h(Text, { bold: true, color: "yellow" }, "Rewind?"),
      h(Text, { wrap: "wrap" }, plainText(describeRewindPlan(chosen))),
      h(Text, { dimColor: true }, "y or Enter rewinds · n or Esc goes back to the list"),
    );
  }
  const { start, end } = windowAround(points.length, index, props.maxRows);
  return h(
    Box,
    { ...frame, borderColor: "cyan" },
    h(Text, { bold: true, color: "cyan" }, "Rewind to before a prompt"),
    ...points
      .slice(start, end)
      .map((point, i) =>
        h(
          Text,
          { key: point.number, inverse: start + i === index, wrap: "truncate-end" },
          `${start + i === index ? "›" : " "} ${row(point, props.columns - 4)}`,
        ),
      ),
    h(Text, { dimColor: true }, "↑/↓ choose · Enter shows what it restores · Esc goes back"),
  );
}

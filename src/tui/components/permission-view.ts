import { Box, Text } from "ink";
import React from "react";
import { plainText } from "../../protocol/plain-text.ts";
import type { EditorState } from "../editor.ts";
import { type Fitted, headAndTailToFit } from "../fit.ts";
import type { PendingPermission } from "../ui-state.ts";
import { PromptView } from "./prompt-view.ts";

const h = React.createElement;

/** Properties of the permission prompt. */
export interface PermissionViewProps {
  request: PendingPermission;
  /** How many more requests wait behind this one. */
  queued: number;
  /** The reason being typed after choosing "deny", or null while choosing. */
  reason: EditorState | null;
  columns: number;
  /** Rows of the summary shown at most. */
  maxSummaryRows: number;
  /** A note about the last key (typing sent to the draft), shown under the choices; one row. */
  note: string | null;
}

/** The request's summary as the prompt shows it: without control codes, cut in the middle if too long. */
export function shownSummary(summary: string, columns: number, maxRows: number): Fitted {
  return headAndTailToFit(plainText(summary), columns - 4, maxRows);
}

/** Asks the user whether a tool call may run: once, for the session, or not (with a reason). */
export function PermissionView(props: PermissionViewProps): React.ReactElement {
  const { request, queued, reason } = props;
  const more = queued > 0 ? ` (${queued} more waiting)` : "";
  const summary = shownSummary(request.summary, props.columns, props.maxSummaryRows);
  const whole = summary.hiddenRows === 0;
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", borderColor: "yellow", paddingX: 1 },
    h(Text, { color: "yellow", bold: true }, `Allow ${plainText(request.name)}?${more}`),
    h(Text, { wrap: "wrap" }, summary.text),
    reason === null
      ? h(
          Text,
          null,
          h(Text, { bold: true }, "y"),
          " yes, once   ",
          ...(whole ? [h(Text, { key: "a", bold: true }, "a"), " yes, for this session   "] : []),
          h(Text, { bold: true }, "n"),
          " no, and say why   ",
          ...(whole ? [] : [h(Text, { key: "v", bold: true }, "v"), " view it whole   "]),
          h(Text, { dimColor: true }, "Esc interrupts the turn"),
        )
      : null,
    reason === null && !whole
      ? h(
          Text,
          { dimColor: true, wrap: "truncate-end" },
          "a (for this session) is unavailable: the request is too long to show whole.",
        )
      : null,
    reason === null && props.note
      ? h(Text, { color: "yellow", wrap: "truncate-end" }, props.note)
      : null,
    reason !== null
      ? h(
          Box,
          { flexDirection: "column" },
          h(
            Text,
            null,
            "Why not? The model reads this. Enter sends (empty is fine), Esc goes back.",
          ),
          h(PromptView, {
            editor: reason,
            placeholder: "reason",
            marker: "✗",
            color: "red",
            maxRows: 1,
          }),
        )
      : null,
  );
}

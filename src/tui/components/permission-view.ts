import { Box, Text } from "ink";
import React from "react";
import type { EditorState } from "../editor.ts";
import { headToFit } from "../fit.ts";
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

/** Asks the user whether a tool call may run: once, for the session, or not (with a reason). */
export function PermissionView(props: PermissionViewProps): React.ReactElement {
  const { request, queued, reason } = props;
  const more = queued > 0 ? ` (${queued} more waiting)` : "";
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", borderColor: "yellow", paddingX: 1 },
    h(Text, { color: "yellow", bold: true }, `Allow ${request.name}?${more}`),
    h(Text, { wrap: "wrap" }, headToFit(request.summary, props.columns - 4, props.maxSummaryRows)),
    reason === null
      ? h(
          Text,
          null,
          h(Text, { bold: true }, "y"),
          " yes, once   ",
          h(Text, { bold: true }, "a"),
          " yes, for this session   ",
          h(Text, { bold: true }, "n"),
          " no, and say why   ",
          h(Text, { dimColor: true }, "Esc interrupts the turn"),
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

import { Box, Text } from "ink";
import React from "react";
import { plainText } from "../../protocol/plain-text.ts";
import { type Fitted, headAndTailToFit } from "../fit.ts";
import { type EditorState, savableForProject } from "../input/index.ts";
import { expandTabs } from "../markdown/index.ts";
import type { PendingPermission } from "../state/index.ts";
import { PromptView } from "./prompt-view.ts";
import { diffTone } from "./tone.ts";

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
  /** Rows of the change's diff shown at most. */
  maxPreviewRows: number;
  /** Where commands run and how they are confined, for a command's prompt. */
  where: string;
}

/** Commands and MCP tools can be allowed for the project (a precise rule in the config); hazards never. */
function canSaveForProject(request: PendingPermission): boolean {
  return savableForProject(request.name) && !isHazard(request);
}

/** A request that undo could not repair, or that runs unconfined: asked apart, never for the session. */
export function isHazard(request: PendingPermission): boolean {
  return request.summary.includes("⚠");
}

/** The diff lines the prompt shows, and how many it leaves out. */
export function shownPreview(
  preview: string | undefined,
  maxRows: number,
): { lines: string[]; hidden: number } {
  if (!preview) return { lines: [], hidden: 0 };
  const all = expandTabs(plainText(preview))
    .split("\n")
    .filter((line) => !/^(--- |\+\+\+ )/.test(line));
  if (all.length <= maxRows) return { lines: all, hidden: 0 };
  const keep = Math.max(1, maxRows - 1);
  return { lines: all.slice(0, keep), hidden: all.length - keep };
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
  const hazard = isHazard(request);
  const whole = summary.hiddenRows === 0 && !hazard;
  const preview = shownPreview(request.preview, props.maxPreviewRows);
  const colour = hazard ? "red" : "yellow";
  const command = request.name === "bash";
  return h(
    Box,
    {
      flexDirection: "column",
      borderStyle: "round",
      borderColor: colour,
      paddingX: 1,
    },
    h(
      Text,
      { color: colour, bold: true },
      hazard
        ? `⚠ Allow ${plainText(request.name)}? Undo may not repair this.${more}`
        : `Allow ${plainText(request.name)}?${more}`,
    ),
    h(Text, { wrap: "wrap" }, summary.text),
    command ? h(Text, { dimColor: true, wrap: "truncate-end" }, props.where) : null,
    ...preview.lines.map((line, i) =>
      h(Text, { key: `p${i}`, ...diffTone(line), wrap: "truncate-end" }, line || " "),
    ),
    preview.hidden > 0
      ? h(
          Text,
          { dimColor: true, wrap: "truncate-end" },
          `… ${preview.hidden} more diff lines (v shows the whole change)`,
        )
      : null,
    reason === null
      ? h(
          Text,
          null,
          h(Text, { bold: true }, "y"),
          " yes, once   ",
          ...(whole ? [h(Text, { key: "a", bold: true }, "a"), " yes, for this session   "] : []),
          ...(whole && canSaveForProject(request)
            ? [h(Text, { key: "p", bold: true }, "p"), " yes, always in this project   "]
            : []),
          h(Text, { bold: true }, "n"),
          " no, and say why   ",
          ...(summary.hiddenRows > 0 || preview.hidden > 0
            ? [h(Text, { key: "v", bold: true }, "v"), " view it whole   "]
            : []),
          h(Text, { dimColor: true }, "Esc interrupts the turn"),
        )
      : null,
    reason === null && whole && request.scope
      ? h(Text, { dimColor: true, wrap: "wrap" }, `a approves ${plainText(request.scope)}.`)
      : null,
    reason === null && !whole
      ? h(
          Text,
          { dimColor: true, wrap: "truncate-end" },
          hazard
            ? "a (for this session) is unavailable: this one is asked every time."
            : "a (for this session) is unavailable: the request is too long to show whole.",
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
            columns: props.columns - 4,
          }),
        )
      : null,
  );
}

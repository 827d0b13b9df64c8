// The live region's row budget: every live part (streaming text, running tools, the prompt or the
// permission prompt, suggestions) gets rows so that the region stays shorter than the terminal, or
// Ink would clear the scrollback and reprint the whole chat on every frame (see fit.ts).

import { shownPreview, shownSummary } from "./components/index.ts";
import { wrappedRows } from "./fit.ts";
import { type Completion, type InputState, suggestionRows } from "./input/index.ts";
import { answerText, renderedTail } from "./markdown/index.ts";
import { queuedRows, type UiState } from "./state/index.ts";

/** Running tool blocks shown in the live region; more are counted on one line. */
const maxLiveTools = 3;

/** Rows a permission prompt's summary of the request may take. */
export function summaryRowsFor(rows: number): number {
  return Math.max(1, Math.floor(rows / 4));
}

/** What the live region shows, each part cut to its rows. */
export interface LiveLayout {
  summaryRows: number;
  editorRows: number;
  previewBudget: number;
  tools: UiState["transcript"]["running"];
  hiddenTools: number;
  receiving: UiState["transcript"]["receiving"];
  /** The answer streaming in, its last rows, or null. */
  streaming: string | null;
  /** While the model reasons: the thinking line, and the rows its opened reasoning may take. */
  thinking: { chars: number; since: number; text: string; open: boolean; openRows: number } | null;
}

export function liveLayout(
  ui: UiState,
  shown: InputState,
  suggestions: Completion | null,
  size: { columns: number; rows: number },
  busy = false,
): LiveLayout {
  const { columns, rows } = size;
  const { transcript } = ui;
  const summaryRows = summaryRowsFor(rows);
  const pending = ui.permissions[0];
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
      (busyGuideShown(shown, busy) ? 1 : 0) +
      Math.min(shown.editor.text.split("\n").length, editorRows) +
      queuedRows(ui.queued) +
      suggestionRows(suggestions);
  const tools = transcript.running.slice(-maxLiveTools);
  const hiddenTools = transcript.running.length - tools.length;
  const receiving = transcript.receiving.slice(-2);
  const thinking = thinkingPart(ui, shown, rows);
  const fixedRows =
    1 +
    (thinking ? 2 + (thinking.open ? thinking.openRows + 1 : 0) : 0) +
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
  return {
    summaryRows,
    editorRows,
    previewBudget,
    tools,
    hiddenTools,
    receiving,
    streaming,
    thinking,
  };
}

/** The thinking line while reasoning arrives (its opened rows a quarter of the terminal); else null. */
function thinkingPart(ui: UiState, shown: InputState, rows: number): LiveLayout["thinking"] {
  const chars = ui.transcript.reasoningChars ?? 0;
  const since = ui.status.thinkingSince ?? null;
  if (chars === 0 || since === null) return null;
  return {
    chars,
    since,
    text: ui.transcript.reasoningText ?? "",
    open: shown.thinkingOpen === true,
    openRows: Math.max(1, Math.floor(rows / 4)),
  };
}

/** While a turn runs and a draft is typed, a line under the prompt says what Enter and Esc will do. */
export function busyGuideShown(shown: InputState, busy: boolean): boolean {
  return busy && shown.editor.text.trim() !== "";
}

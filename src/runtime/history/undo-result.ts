import type { UndoResult } from "../../protocol/index.ts";
import type { UndoReport } from "../../tools/index.ts";

/** The undo machinery's report as the session's answer: data first, nex's account beside it. */
export function undoResultOf(report: UndoReport): UndoResult {
  return {
    kind:
      report.failed.length > 0
        ? "partial"
        : report.turns.length === 0 && report.restored.length === 0
          ? "nothing"
          : "undone",
    prompts: report.prompts,
    turns: report.turns,
    restored: report.restored,
    leftAlone: report.leftAlone,
    failed: report.failed,
    notes: report.notes,
    report: report.text,
  };
}

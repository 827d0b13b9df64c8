// What undo would restore, step by step, in words (`nex undo --list`, `/undo` with no count).

/** One step `undo` would take, newest first, with the paths it changed. */
export interface UndoPreviewStep {
  prompt: number | null;
  /** When the step first changed something (ISO), or null in older logs. */
  time: string | null;
  turns: number[];
  commands: string[];
  paths: string[];
}

/** The preview as text. */
export function describePreview(steps: UndoPreviewStep[]): string {
  if (steps.length === 0) return "Nothing to undo: no file changes were recorded in this session.";
  return steps
    .map((step, i) => {
      const name = step.prompt !== null ? `prompt ${step.prompt}` : `turn ${step.turns.join(", ")}`;
      const paths = step.paths.length > 0 ? step.paths.join(", ") : "(no file differs)";
      return `${i + 1}. ${name}: ${paths}`;
    })
    .join("\n");
}

import { describeUndo } from "../protocol/index.ts";
import type { UndoSessionAnswer } from "../runtime/history/index.ts";

/** `nex undo`'s output: which session (when nex chose it), a lock take-over, then the account. */
export function describeUndoAnswer(answer: UndoSessionAnswer): string {
  const which =
    answer.chosen && answer.sessionId
      ? `Session ${answer.sessionId} (the last that changed files here): `
      : "";
  if (answer.kind === "preview") return `${which}${which ? "\n" : ""}${answer.text}`;
  const notice = answer.lockNotice ? `${answer.lockNotice}\n` : "";
  return `${notice}${which}${describeUndo(answer.result)}`;
}

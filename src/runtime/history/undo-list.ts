// `/undo list` in the chat: undo's steps, newest first, each named by the prompt it belongs to in
// `/rewind`'s numbering (1 = the oldest prompt still in the conversation) with the prompt's first
// words, so the two lists speak of the same prompts.
import type { Message } from "../../protocol/index.ts";
import { firstLine, type PromptMark, type UndoStepInfo } from "./rewind.ts";

/** The list, as text. */
export function describeUndoList(
  marks: readonly PromptMark[],
  messages: readonly Message[],
  steps: readonly UndoStepInfo[],
): string {
  if (steps.length === 0) return "Nothing to undo: no file changes were recorded in this session.";
  // Numbered as rewindPoints numbers them: the marks still in the conversation, oldest first.
  const present = new Set(messages);
  const numberOf = new Map(
    marks.filter((mark) => present.has(mark.message)).map((mark, i) => [mark, i + 1]),
  );
  const rows = steps.map((step, i) => {
    const mark = promptOf(marks, step.time);
    const number = mark ? numberOf.get(mark) : undefined;
    const prompt = !mark
      ? step.time === null
        ? "an older step (its time was not recorded)"
        : "a prompt from before this chat (resumed)"
      : number === undefined
        ? `an earlier prompt, no longer in the conversation: "${firstLine(mark.text, 40)}"`
        : `prompt ${number}: "${firstLine(mark.text, 40)}"`;
    const paths = step.paths.length > 0 ? step.paths.join(", ") : "(no file differs)";
    return `${String(i + 1).padStart(2)}. ${prompt} · ${paths}`;
  });
  return [
    ...rows,
    "",
    "/undo N undoes the newest N of these steps (their prompts numbered as /rewind numbers them).",
  ].join("\n");
}

/** The prompt a step belongs to: the last one sent at or before the step's first change. */
function promptOf(marks: readonly PromptMark[], time: string | null): PromptMark | null {
  if (time === null) return null;
  let found: PromptMark | null = null;
  for (const mark of marks) if (mark.time <= time) found = mark;
  return found;
}

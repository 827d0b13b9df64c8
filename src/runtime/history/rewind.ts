// `/rewind`: back to before one of the session's earlier prompts. The files go back with undo's
// steps (each prompt's checkpoints; what undo replaces is set aside, files changed outside nex are
// left alone as undo leaves them), and the conversation is cut to before that prompt. The journal
// records the cut as one line (how many of the newest messages leave), so a resume sees the
// rewound conversation, a cut write leaves it as it was, and every earlier record stays in the file.
import type { Message } from "../../protocol/index.ts";

/** A prompt of this session the chat can rewind to. */
export interface PromptMark {
  /** The user message the prompt became (found again by identity: compaction drops it). */
  message: Message;
  /** The prompt as typed, put back in the input box after a rewind. */
  text: string;
  /** When it was sent (ISO); undo's steps at or after it are what came after it. */
  time: string;
}

/** One undo step: when it first changed something, and the paths it would restore. */
export interface UndoStepInfo {
  time: string | null;
  paths: string[];
}

/** A rewind target as the picker shows it. */
export interface RewindPoint {
  /** 1-based, oldest first, among the prompts still in the conversation. */
  number: number;
  text: string;
  time: string;
  /** Messages that leave the conversation (this prompt and all after it). */
  messagesGone: number;
  /** Undo steps to take, and the paths they restore. */
  steps: number;
  paths: string[];
}

/** The prompts still in the conversation, each with what rewinding to before it would restore. */
export function rewindPoints(
  marks: readonly PromptMark[],
  messages: readonly Message[],
  steps: readonly UndoStepInfo[],
): RewindPoint[] {
  const points: RewindPoint[] = [];
  for (const mark of marks) {
    const index = messages.indexOf(mark.message);
    if (index < 0) continue;
    // A step with no time comes from an older log: it cannot be placed, so it is not undone here.
    const after = steps.filter((step) => step.time !== null && step.time >= mark.time);
    points.push({
      number: points.length + 1,
      text: mark.text,
      time: mark.time,
      messagesGone: messages.length - index,
      steps: after.length,
      paths: [...new Set(after.flatMap((step) => step.paths))].sort(),
    });
  }
  return points;
}

/** The first line of a prompt, for a row of the picker. */
export function firstLine(text: string, max = 60): string {
  const line = text.trim().split("\n")[0]?.replace(/\s+/g, " ") ?? "";
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** What rewinding to `point` will do, said before it is done. */
export function describeRewindPlan(point: RewindPoint): string {
  const files =
    point.paths.length === 0
      ? "No file changed since then: no file is restored."
      : `Restores ${point.paths.length} file${point.paths.length === 1 ? "" : "s"} to before it (${point.steps} undo step${point.steps === 1 ? "" : "s"}): ${point.paths.join(", ")}. What is there now is set aside, as /undo does; a file changed outside nex since is left alone and said.`;
  return [
    `Rewind to before prompt ${point.number} (${time(point.time)}): "${firstLine(point.text)}"`,
    files,
    `${point.messagesGone} message${point.messagesGone === 1 ? "" : "s"} leave the conversation (the journal keeps them); the prompt goes back to the input box.`,
  ].join("\n");
}

/** The list `/rewind` shows. */
export function describeRewindPoints(points: readonly RewindPoint[]): string {
  if (points.length === 0)
    return "Nothing to rewind to: no prompt of this chat is in the conversation (prompts from before a resume or a compaction cannot be rewound).";
  const rows = points.map((p) => {
    const changed =
      p.paths.length === 0
        ? "no file changed after it"
        : `${p.paths.length} file${p.paths.length === 1 ? "" : "s"} changed after it`;
    return `${String(p.number).padStart(2)}. ${time(p.time)}  ${firstLine(p.text)}  · ${changed}, ${p.messagesGone} messages`;
  });
  return [
    ...rows,
    "",
    "/rewind N shows what rewinding to before prompt N restores; /rewind N yes does it.",
  ].join("\n");
}

function time(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toTimeString().slice(0, 8);
}

// Every loop watch of one reply, and the loop they found first: the answer's text (repetition.ts:
// calls written as text; unit-loop.ts: one short unit; line-loop.ts: lines that close reasoning over
// and over), each native call's arguments (unit-loop.ts) and the reasoning (line-loop.ts). The reasoning is kept whole until a loop is found there.
import { createClosedReasoningWatch, createReasoningWatch } from "./line-loop.ts";
import { createWatchedText, type Repetition } from "./repetition.ts";
import { createArgumentsWatch } from "./unit-loop.ts";

export interface ReplyWatch {
  /** The answer's text as it streamed. */
  readonly text: string[];
  /** The reasoning as it streamed. */
  readonly reasoning: string[];
  addText(piece: string): void;
  addReasoning(piece: string): void;
  addArguments(index: number, name: string | undefined, piece: string | null | undefined): void;
  /** The first loop found: the text's, a call's arguments', or the reasoning's. */
  loop(): Repetition | null;
  /** The reasoning to keep: a loop's first round is what the model thought; the rest repeats it. */
  keptReasoning(): string[];
}

export function createReplyWatch(): ReplyWatch {
  const text = createWatchedText();
  const callArguments = createArgumentsWatch();
  const thought = createReasoningWatch();
  const closings = createClosedReasoningWatch();
  const reasoning: string[] = [];
  // The first loop found is the reply's: the stream stops there, and what comes after (the rest of
  // the piece, the content a splitter held back) changes neither what is said nor what is kept.
  let first: Repetition | null = null;
  return {
    text: text.pieces,
    reasoning,
    addText(piece) {
      text.add(piece);
      if (first) return;
      const closed = text.loop ? null : closings.push(piece);
      first =
        text.loop ??
        (closed && { ...closed, detail: `${closed.detail}, past the end of its reasoning` });
    },
    addReasoning(piece) {
      reasoning.push(piece);
      const found = first ? null : thought.push(piece);
      // The answer's text is not part of a loop in the reasoning: it is kept whole.
      if (found) first = { ...found, keepChars: Number.POSITIVE_INFINITY };
    },
    addArguments(index, name, piece) {
      if (first) return;
      callArguments.add(index, name, piece);
      first = callArguments.loop;
    },
    loop: () => first,
    keptReasoning: () =>
      thought.loop ? [reasoning.join("").slice(0, thought.loop.keepChars)] : reasoning,
  };
}

import type { CallVerdict } from "../protocol/index.ts";
import { CHANGE_TACK_AT } from "./refusal-tracker.ts";

type Poisoned = Extract<CallVerdict, { type: "poisoned" }>;

/** The tool result a model gets for a call that did not arrive whole: what happened, and what to do. */
export function refusalContent(tool: string, verdict: Poisoned, occurrence: number): string {
  const large = verdict.cause === "output_limit" || verdict.cause === "stream_dropped";
  // A whole call of the wrong shape did not arrive incomplete: saying so would send the model
  // after a cut that never happened.
  const shape = verdict.cause === "not_an_object" || verdict.cause === "unparseable";
  const lines = [
    `Not executed: your ${tool} call arrived ${shape ? "malformed" : "incomplete"}, so nothing was run or written. ${capitalise(verdict.reason)}. ` +
      `${verdict.bytesReceived} bytes of arguments were received.`,
  ];
  lines.push(
    large
      ? "Re-emit the call with complete arguments. If the content is large, write the file in parts: write_file with part=1 and parts=N, then part 2, and so on, each part well under your output limit."
      : verdict.cause === "not_an_object"
        ? "Re-emit the call with its arguments as one JSON object of the tool's named parameters."
        : "Re-emit the call with complete, valid JSON arguments.",
  );
  if (occurrence >= CHANGE_TACK_AT) lines.push(changeTack(occurrence));
  return lines.join("\n");
}

/** Added to a refusal when the model has failed the same way before. */
export function changeTack(occurrence: number): string {
  return (
    `This is failure ${occurrence} in a row of the same kind; the next one ends the session. Change approach now: ` +
    "split the work into smaller calls (write_file in parts of at most about 150 lines each with part/parts, or edit_file for a targeted change)."
  );
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

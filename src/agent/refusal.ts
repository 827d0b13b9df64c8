import type { CallVerdict } from "../protocol/index.ts";
import { CHANGE_TACK_AT, STOP_AT } from "./refusal-tracker.ts";

type Poisoned = Extract<CallVerdict, { type: "poisoned" }>;

/** The tool result a model gets for a call that did not arrive whole: what happened, and what to do. */
export function refusalContent(tool: string, verdict: Poisoned, occurrence: number): string {
  // A whole call of the wrong shape did not arrive incomplete: saying so would send the model
  // after a cut that never happened.
  const shape = verdict.cause === "not_an_object" || verdict.cause === "unparseable";
  const lines = [
    `Not executed: your ${tool} call arrived ${shape ? "malformed" : "incomplete"}, so nothing was run or written. ${capitalise(verdict.reason)}. ` +
      `${verdict.bytesReceived} bytes of arguments were received.`,
  ];
  lines.push(
    tooLarge(verdict.cause)
      ? `Re-emit the call with complete arguments. If they are large, ${smaller(tool)}`
      : verdict.cause === "not_an_object"
        ? "Re-emit the call with its arguments as one JSON object of the tool's named parameters."
        : "Re-emit the call with complete, valid JSON arguments.",
  );
  if (occurrence >= CHANGE_TACK_AT) lines.push(changeTack(occurrence, tool, verdict.cause));
  return lines.join("\n");
}

/** Added to a refusal when the model has failed the same way before: what to do instead, for this tool and cause. */
export function changeTack(occurrence: number, tool: string, cause: string): string {
  // The refusal that ends the run stays in the journal: a resumed session shows it to the model.
  const next = occurrence >= STOP_AT ? "nex stops this run here." : "the next one ends this run.";
  return `This is failure ${occurrence} in a row of the same kind; ${next} Change approach now: ${approach(tool, cause)}`;
}

function approach(tool: string, cause: string): string {
  if (tooLarge(cause)) return smaller(tool);
  switch (cause) {
    case "invalid_arguments":
      return `call ${tool} with only the parameters its description lists, each of its type (the error above says what was wrong), or use another tool.`;
    case "repeated_call":
      return "use the result you already have, or do something different.";
    default:
      return `call ${tool} with complete, valid JSON arguments, and keep them short.`;
  }
}

function tooLarge(cause: string): boolean {
  return cause === "output_limit" || cause === "stream_dropped";
}

/** How to get the same work through in smaller calls, for the tool that was too large. */
function smaller(tool: string): string {
  if (tool === "write_file")
    return "write the file in parts of at most about 150 lines each: write_file with part=1 and parts=N, then part 2, and so on (or edit_file for a targeted change).";
  if (tool === "edit_file")
    return "make the change in several smaller edit_file calls, each old_string only as long as it must be to be unique.";
  return `send ${tool} shorter arguments, or split the work into several smaller calls.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

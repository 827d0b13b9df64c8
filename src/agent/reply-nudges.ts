// A reply with no tool call that is not an answer either (empty, a call written as JSON text, a call
// to a tool that does not exist): small models do this now and then, and do go on when told. Ending
// the run as "done" would report a task as finished while nothing of it ran.
import type { ToolHost } from "../protocol/index.ts";
import {
  aCall,
  brokenJsonCall,
  brokenJsonCallReminder,
  embeddedToolCall,
  type FilesFound,
  findTextToolCall,
  inventedToolCall,
  inventedToolReminder,
  meantCall,
  namesAFile,
  textToolCallMessage,
  textToolCallReminder,
} from "./text-tool-call.ts";

/** What a run has asked so far: the empty reply once, text calls once in a row and a few a run. */
export interface ReplyNudges {
  askedForAnswer: boolean;
  textCalls: number;
  /** The model was asked again on the last turn (cleared by a turn with calls). */
  lastTurn: boolean;
  /** What the last turn's telling was about: the same problem right after it ends the run. */
  lastKind?: UnrunKind;
  /** Replies nex cut because they looped (see providers/turns/repetition.ts). */
  runaways: number;
}

/** What nex does with such a reply: ask the model again, or end the run with an error. */
export type ReplyNudge =
  | { type: "ask"; notice: string; reminder: string }
  | { type: "error"; message: string };

/**
 * The nudge for a reply without calls, or null when the reply is an answer (or a first empty turn).
 * `tools` looks up a file an invented tool was named after, so the reminder names only paths that exist.
 */
export async function replyNudge(
  text: string,
  known: string[],
  nudges: ReplyNudges,
  tools: Pick<ToolHost, "filesNamed"> = {},
  signal: AbortSignal = new AbortController().signal,
): Promise<ReplyNudge | null> {
  if (!text.trim() && !nudges.askedForAnswer) {
    // An empty reply after some work is no answer (small models stop so mid-task): asked once.
    nudges.askedForAnswer = true;
    return {
      type: "ask",
      notice:
        "The model's reply was empty (no text, no tool call); nex asks it once to go on or answer.",
      reminder: EMPTY_REPLY_NUDGE,
    };
  }
  if (!text.trim()) {
    // Empty again after being asked (r12 fix-test-js): no answer came, so the run cannot say it is done.
    return {
      type: "error",
      message:
        "The model's reply was empty again after nex asked it to go on or answer, so the run ends without an answer and the task may not be finished. What its tool calls changed stays; check it, or try again with a larger model.",
    };
  }
  // Told once in a row per problem: a reply with a new problem (a real tool now, its JSON broken)
  // is progress and is told too, within the run's few.
  const mayAsk = (kind: UnrunKind) =>
    nudges.textCalls < MAX_TEXT_CALL_REMINDERS && !(nudges.lastTurn && nudges.lastKind === kind);
  // Why a text call ends the run: told of it right before, or the run's reminders spent (a count).
  const spent = () =>
    nudges.lastTurn && nudges.lastKind === "text" ? undefined : MAX_TEXT_CALL_REMINDERS;
  const told = (kind: UnrunKind) => {
    nudges.textCalls += 1;
    nudges.lastTurn = true;
    nudges.lastKind = kind;
  };
  const textCall = findTextToolCall(text, known);
  if (textCall && !textCall.marked && mayAsk("text")) {
    told("text");
    return {
      type: "ask",
      notice: `The model wrote ${aCall(textCall.tool)} as JSON text instead of calling the tool; nex told it so and asks again.`,
      reminder: textToolCallReminder(textCall.tool),
    };
  }
  if (textCall)
    return { type: "error", message: textToolCallMessage(textCall.tool, textCall.marked, spent()) };
  const invented = inventedToolCall(text, known);
  const broken = invented === null ? brokenJsonCall(text, known) : null;
  const echoed = invented === null && broken === null && echoedToolList(text);
  const kind: UnrunKind = invented !== null ? "invented" : broken !== null ? "broken" : "echo";
  if (((invented ?? broken) !== null || echoed) && !mayAsk(kind) && nudges.textCalls > 0) {
    // Told already: the reply is still a call nex cannot run, and the task is not done.
    const again = nudges.lastTurn && nudges.lastKind === kind;
    return { type: "error", message: unrunCallMessage(invented, broken, again) };
  }
  if (echoed && mayAsk(kind)) {
    told(kind);
    return {
      type: "ask",
      notice:
        "The model answered with its tool list (tool definitions in <tools>), not a call or an answer; nex told it so and asks again.",
      reminder: ECHO_NUDGE,
    };
  }
  if (invented !== null && mayAsk(kind)) {
    told(kind);
    return {
      type: "ask",
      notice: `The model called a tool that does not exist (${invented}) in JSON text; nex told it which tools there are and asks again.`,
      reminder: inventedToolReminder(
        invented,
        known,
        await filesFound(invented, known, tools, signal),
      ),
    };
  }
  if (broken !== null && mayAsk(kind)) {
    told(kind);
    return {
      type: "ask",
      notice: `The model wrote ${aCall(broken)} as JSON text that does not parse; nex told it so and asks again.`,
      reminder: brokenJsonCallReminder(broken),
    };
  }
  // A call inside other text ("Let me list the directory:" and the call): nothing ran, so it is no
  // answer. Told once in a row, then an error.
  const embedded = embeddedToolCall(text, known);
  if (embedded !== null && mayAsk("text")) {
    told("text");
    return {
      type: "ask",
      notice: `The model wrote ${aCall(embedded)} as JSON inside other text instead of calling the tool; nex told it so and asks again.`,
      reminder: textToolCallReminder(embedded, true),
    };
  }
  if (embedded !== null)
    return { type: "error", message: textToolCallMessage(embedded, false, spent()) };
  return null;
}

/**
 * What a native call to a tool the host does not have probably meant (r16: an invented tool among
 * several calls heard only the tool list), as the reminder for one invented call says it.
 */
export async function unknownToolHint(
  name: string,
  tools: ToolHost,
  signal: AbortSignal,
): Promise<string> {
  const known = tools.specs().map((spec) => spec.name);
  return meantCall(name, known, await filesFound(name, known, tools, signal));
}

/** The paths a file name an invented tool was named after may mean, or null when nex cannot look. */
async function filesFound(
  name: string,
  known: string[],
  tools: Pick<ToolHost, "filesNamed">,
  signal: AbortSignal,
): Promise<FilesFound | null> {
  if (!tools.filesNamed || !namesAFile(name) || !known.includes("read_file")) return null;
  try {
    const paths = await tools.filesNamed(name, HINT_PATHS + 1, signal);
    return { paths: paths.slice(0, HINT_PATHS), more: paths.length > HINT_PATHS };
  } catch {
    // The workspace could not be listed: the reminder then claims nothing about what exists.
    return null;
  }
}

/**
 * A reply nex cut while it looped (`detail`: what repeated): nothing of it ran. The model is told once
 * a run and asked for one call; a second loop ends the run, saying what to change.
 */
export function runawayNudge(detail: string, nudges: ReplyNudges): ReplyNudge {
  nudges.runaways += 1;
  if (nudges.runaways > MAX_RUNAWAY_REMINDERS) {
    return {
      type: "error",
      message:
        `The model's reply looped again (${detail}) after nex told it so: nex stopped the stream, so the server stopped generating, and ran nothing of that reply, so the task is not done. ` +
        "Small models fall into such loops: a larger model, or a repeat penalty on the server (llama-server `--repeat-penalty 1.1`, or your server's sampling settings), helps; then run the task again.",
    };
  }
  return {
    type: "ask",
    notice: `The model's reply looped (${detail}): nex stopped the stream, so the server stopped generating, ran nothing of that reply, and asks the model once for a single call.`,
    reminder: `nex: your last reply wrote ${detail}, a loop, so nex stopped it and ran none of it. Make one tool call now (one call, once), or answer if the task is done.`,
  };
}

/** The problems of a reply the loop tells the model about. */
type UnrunKind = "text" | "invented" | "broken" | "echo";

function unrunCallMessage(invented: string | null, broken: string | null, again: boolean): string {
  const what =
    invented !== null
      ? `a call to a tool that does not exist (${invented})`
      : broken !== null
        ? `${aCall(broken)} in JSON that does not parse`
        : "its tool list (tool definitions), not a call or an answer";
  const when = again
    ? "again after nex told it so"
    : `after nex had asked it again ${MAX_TEXT_CALL_REMINDERS} times this run`;
  return (
    `The model's reply was ${what}, ${when}, so nex ran nothing and the task is not done. ` +
    "The model writes calls outside its chat format's tool-call syntax: a model trained for tool calls does better; `nex doctor` checks a model's tool calls."
  );
}

/**
 * A reply that echoes the tool list the chat template showed the model (Qwen2.5-Coder 0.5B, r11
 * new-module: `<tools>` and a `{"type": "function", "function": {...}}` per tool) is no answer: as
 * one it would end the task as done. The tag and a definition together; either alone may be an answer.
 */
function echoedToolList(text: string): boolean {
  return (
    /<tools>/.test(text) && /\{\s*"type"\s*:\s*"function"\s*,\s*"function"\s*:\s*\{/.test(text)
  );
}

const ECHO_NUDGE =
  "nex: your reply was a list of tool definitions, not a tool call or an answer, so nothing ran. Call one of your tools now with a real tool call, or, if you are finished, answer in plain words.";

const EMPTY_REPLY_NUDGE =
  "nex: your reply was empty. If the task is not finished, continue with a tool call; if it is, answer with a short summary of what you did.";
// Paths a reminder names for a file name: a few are a choice, more are glob's to list.
const HINT_PATHS = 3;
// A looping reply: the model is told this many times a run, then the run ends.
const MAX_RUNAWAY_REMINDERS = 1;
// Calls written as JSON text: the model is told once in a row, at most this many times a run.
const MAX_TEXT_CALL_REMINDERS = 3;

// What a chat reader sees of a reply while it is written: the answer's text with each tool call of
// the turn as a box in workgraph's chat-transcript form (a `┌─ name` line, `│ ` lines, a `└─` line),
// which `wg tui` draws as a tool box. It fills `.streaming` live and the outbox's `full_response`.
// Bounded: a box keeps its first lines, a line its first characters, and the whole keeps its end.
import { type AgentEvent, plainText } from "../../protocol/index.ts";
import { describeArgs } from "../text-renderer.ts";

/** Lines of a tool's result a box shows. */
const BOX_LINES = 12;
/** Characters of one line a box shows. */
const LINE_CHARS = 240;
/** The transcript's size: past it, its oldest part gives way (the answer itself is in `content`). */
const MAX_CHARS = 128 * 1024;
const HEAD_RULE = 36;

export interface ChatTranscript {
  /** Takes one event of the session's own turn; true when the transcript changed. */
  add(event: AgentEvent): boolean;
  text(): string;
  /** True once a tool call is in it: then it says more than the answer alone. */
  hasTools(): boolean;
}

export function chatTranscript(): ChatTranscript {
  let text = "";
  let tools = false;
  let cut = false;
  // Calls whose box is open, by id: their progress lines go in them.
  const open = new Set<string>();
  const append = (more: string) => {
    text += more;
    if (text.length > MAX_CHARS) {
      // From a line's start; within one long line, never between the halves of a surrogate pair.
      let from = text.indexOf("\n", text.length - MAX_CHARS * 0.75) + 1;
      if (from === 0) from = text.length - MAX_CHARS * 0.75;
      if (/[\uDC00-\uDFFF]/.test(text.charAt(from))) from += 1;
      text = text.slice(from);
      cut = true;
    }
    return true;
  };
  const opening = (name: string, summary: string) => {
    tools = true;
    const lead = text === "" || text.endsWith("\n\n") ? "" : text.endsWith("\n") ? "\n" : "\n\n";
    return `${lead}┌─ ${name} ${"─".repeat(Math.max(3, HEAD_RULE - name.length))}\n${boxLines(summary, 3)}`;
  };
  return {
    add(event) {
      if (event.agent) return false;
      switch (event.type) {
        case "text_delta":
          return append(event.text);
        case "tool_call_started":
          open.add(event.callId);
          return append(opening(event.name, callSummary(event.name, event.args)));
        case "tool_progress":
          return open.has(event.callId) ? append(boxLines(`… ${event.message}`, 1)) : false;
        case "tool_call_refused": {
          const head = open.has(event.callId) ? "" : opening(event.name, "");
          open.delete(event.callId);
          return append(`${head}${boxLines(`✗ refused, not run: ${event.reason}`, 3)}└─\n`);
        }
        case "tool_result": {
          if (!open.delete(event.callId)) return false;
          const body = plainText(event.content).trimEnd();
          const shown = body === "" ? "(no output)" : body;
          return append(`${boxLines(event.isError ? `✗ ${shown}` : shown, BOX_LINES)}└─\n\n`);
        }
        default:
          return false;
      }
    },
    text: () => (cut ? `[… the start of this reply's steps is left out]\n${text}` : text),
    hasTools: () => tools,
  };
}

/** What a call does, in a line: a command as typed, else its arguments worth a glance. */
function callSummary(name: string, args: Record<string, unknown>): string {
  if (name === "bash" && typeof args.command === "string") return `$ ${args.command}`;
  return describeArgs(args);
}

/** `text` as a box's `│ ` lines: at most `max` lines of at most LINE_CHARS characters each. */
function boxLines(text: string, max: number): string {
  if (text === "") return "";
  const lines = plainText(text).split("\n");
  const shown = lines.slice(0, max).map((line) => {
    const clipped = line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line;
    return `│ ${clipped}\n`;
  });
  if (lines.length > max) shown.push(`│ … ${lines.length - max} more lines\n`);
  return shown.join("");
}

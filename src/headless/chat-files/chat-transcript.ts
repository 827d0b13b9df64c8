// What a chat reader sees of a reply while it is written: the answer's text with each tool call of
// the turn as a box in workgraph's chat-transcript form (a `┌─ name` line, `│ ` lines, a `└─` line),
// which `wg tui` draws as a tool box. It fills `.streaming` live and the outbox's `full_response`.
// Calls that run side by side keep a box each; a running command's latest output shows in its box
// until its result replaces it. Bounded: a box keeps its first lines, a line its first characters,
// and the whole keeps its end.
import { type AgentEvent, plainText } from "../../protocol/index.ts";
import { describeArgs } from "../text-renderer.ts";

/** Lines of a tool's result a box shows. */
const BOX_LINES = 12;
/** Lines of a running command's latest output a box shows. */
const LIVE_LINES = 5;
/** Characters of one line a box shows. */
const LINE_CHARS = 240;
/** The transcript's size: past it, its oldest parts give way (the answer itself is in `content`). */
const MAX_CHARS = 128 * 1024;
const HEAD_RULE = 36;
const CUT_NOTE = "[… the start of this reply's steps is left out]\n";

export interface ChatTranscript {
  /** Takes one event of the session's own turn; true when the transcript changed. */
  add(event: AgentEvent): boolean;
  text(): string;
  /** True once a tool call is in it: then it says more than the answer alone. */
  hasTools(): boolean;
}

/** A run of the model's text, or one call's box (open until its result or refusal). */
type Part =
  | { kind: "text"; text: string }
  | { kind: "box"; id: string; body: string; live: string; open: boolean };

export function chatTranscript(): ChatTranscript {
  const parts: Part[] = [];
  const boxes = new Map<string, Extract<Part, { kind: "box" }>>();
  let size = 0;
  let cut = false;
  let tools = false;
  const grow = (added: number) => {
    size += added;
    // The oldest parts give way; the last one (what is being written) always stays.
    while (size > MAX_CHARS && parts.length > 1) {
      const gone = parts.shift() as Part;
      size -= weight(gone);
      if (gone.kind === "box") boxes.delete(gone.id);
      cut = true;
    }
    return true;
  };
  const openBox = (id: string, name: string, summary: string) => {
    tools = true;
    const box = { kind: "box" as const, id, body: "", live: "", open: true };
    box.body = `┌─ ${name} ${"─".repeat(Math.max(3, HEAD_RULE - name.length))}\n${boxLines(summary, 3)}`;
    parts.push(box);
    boxes.set(id, box);
    return grow(weight(box));
  };
  const addToBox = (id: string, lines: string, close: boolean) => {
    const box = boxes.get(id);
    if (!box?.open) return false;
    const before = weight(box);
    box.body += lines;
    box.live = "";
    if (close) {
      box.body += "└─\n";
      box.open = false;
    }
    return grow(weight(box) - before);
  };
  return {
    add(event) {
      if (event.agent) return false;
      switch (event.type) {
        case "text_delta": {
          const last = parts.at(-1);
          if (last?.kind === "text") last.text += event.text;
          else parts.push({ kind: "text", text: event.text });
          return grow(event.text.length);
        }
        case "tool_call_started":
          return openBox(event.callId, event.name, callSummary(event.name, event.args));
        case "tool_progress":
          return addToBox(event.callId, boxLines(`… ${event.message}`, 1), false);
        case "tool_output": {
          const box = boxes.get(event.callId);
          if (!box?.open) return false;
          const before = weight(box);
          box.live = boxLines(lastLines(plainText(event.tail), LIVE_LINES), LIVE_LINES);
          return grow(weight(box) - before);
        }
        case "tool_call_refused":
          if (!boxes.get(event.callId)?.open) openBox(event.callId, event.name, "");
          return addToBox(event.callId, boxLines(`✗ refused, not run: ${event.reason}`, 3), true);
        case "tool_result": {
          const body = plainText(event.content).trimEnd();
          const shown = body === "" ? "(no output)" : body;
          return addToBox(
            event.callId,
            boxLines(event.isError ? `✗ ${shown}` : shown, BOX_LINES),
            true,
          );
        }
        default:
          return false;
      }
    },
    text() {
      let out = cut ? CUT_NOTE : "";
      for (const part of parts) {
        if (part.kind === "text") {
          out += part.text;
          continue;
        }
        // A box stands apart from the text around it.
        out += out === "" || out.endsWith("\n\n") ? "" : out.endsWith("\n") ? "\n" : "\n\n";
        out += `${part.body}${part.live}${part.open ? "" : "\n"}`;
      }
      return out;
    },
    hasTools: () => tools,
  };
}

function weight(part: Part): number {
  return part.kind === "text" ? part.text.length : part.body.length + part.live.length + 2;
}

/** What a call does, in a line: a command as typed, else its arguments worth a glance. */
function callSummary(name: string, args: Record<string, unknown>): string {
  if (name === "bash" && typeof args.command === "string") return `$ ${args.command}`;
  return describeArgs(args);
}

function lastLines(text: string, count: number): string {
  return text.trimEnd().split("\n").slice(-count).join("\n");
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

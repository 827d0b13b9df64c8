// The one redaction every event passes before it leaves the process, whatever reads it (the chat,
// `--json`, stream-json, ACP, the journal): nex's own secrets in every printed form, secret-looking
// strings (keys, bearer tokens, private keys), and keys and passwords in URLs, in every string of
// every event. Streamed text (answer, reasoning, a tool call's arguments) comes in fragments that
// may cut a secret in two, so the end of each stream after its last word boundary is held back until
// the next fragment or the stream's end: a secret is always redacted whole.
import type { AgentEvent } from "../../protocol/index.ts";
import { mapStrings, type SecretScrubber, scrubText, textMemo } from "../../session/index.ts";
import { redactUrlsIn } from "../../web/redact-url.ts";

/** Turns each event into the events to send in its place, redacted. */
export interface EventRedactor {
  /** `event` redacted; held fragments of other streams come first when `event` ends them. */
  redact(event: AgentEvent): AgentEvent[];
  /** One string as every event's strings are redacted. */
  text(text: string): string;
  /** A whole value (a terminal event, a stored record), redacted as one piece. */
  value<T>(value: T): T;
}

type StreamEvent = Extract<
  AgentEvent,
  { type: "text_delta" | "reasoning_delta" | "tool_call_delta" }
>;

// A secret, a URL or a token never spans white space or quotes (JSON's, HTML's, the shell's).
const BOUNDARY = /[\s"'`<>]/g;
// What is kept of a stream's released text to redact the next piece in context: a pattern that
// starts with a keyword (`Bearer `, `api_key: `) and ends in the next piece is still matched.
const CONTEXT = 64;

interface Stream {
  /** The fragment's event with its text taken out, to put the released text back into. */
  template: StreamEvent;
  held: string;
  /** The end of what was released already (from a word's start), for context. */
  before: string;
}

/** The last `CONTEXT` characters or so of a stream, starting at a word (never inside one). */
function keepEnd(released: string): string {
  if (released.length <= CONTEXT) return released;
  const tail = released.slice(-CONTEXT);
  const word = tail.search(/[\s"'`<>]/);
  return word < 0 ? "" : tail.slice(word + 1);
}

function textOf(event: StreamEvent): string {
  return event.type === "tool_call_delta" ? event.argumentsDelta : event.text;
}

function withText(event: StreamEvent, text: string): StreamEvent {
  return event.type === "tool_call_delta" ? { ...event, argumentsDelta: text } : { ...event, text };
}

function streamKey(event: StreamEvent): string {
  const agent = event.agent?.id ?? "";
  return event.type === "tool_call_delta"
    ? `${agent}\0tool\0${event.index}`
    : `${agent}\0${event.type}`;
}

function isStream(event: AgentEvent): event is StreamEvent {
  return (
    event.type === "text_delta" ||
    event.type === "reasoning_delta" ||
    event.type === "tool_call_delta"
  );
}

/**
 * The redaction of one string, the same as every event's: for what nex writes outside the event
 * stream (the checkpoint log's commands, stored tool results, MCP servers' logs).
 */
export function textRedaction(secrets: SecretScrubber | undefined): (text: string) => string {
  // One per scrubber: the events, the journal, stored results and logs of a session see the same
  // strings (an event, then its journal record), and each would otherwise scan them again.
  const known = secrets ? sessionRedactions.get(secrets) : undefined;
  if (known) return known;
  // The answer depends only on the text and the session's secrets, which never change once the
  // scrubber is built: a remembered answer is the one a new scan would give.
  // URLs first: a URL whose password the patterns replaced would no longer parse.
  const redact = textMemo((raw) => scrubText(redactUrlsIn(raw), secrets ?? []).text);
  // Too short to hold a secret, a piece of one, a key pattern or a URL's password (`://u:p@`).
  const text = (raw: string) => (raw.length < SHORTEST_SECRET ? raw : redact(raw));
  if (secrets) sessionRedactions.set(secrets, text);
  return text;
}

// Keyed by the scrubber itself: another session's secrets are another scrubber, never this memo.
const sessionRedactions = new WeakMap<SecretScrubber, (text: string) => string>();

// Below this length no form matches: nex's secrets and their pieces are 8 characters or more, the
// patterns ask for more still, and a URL's password needs `://u:p@` (7).
const SHORTEST_SECRET = 7;

/** The redactor of one session; `secrets` are the values nex holds (none: patterns only). */
export function createEventRedactor(secrets: SecretScrubber | undefined): EventRedactor {
  const text = textRedaction(secrets);
  const value = <T>(raw: T): T => mapStrings(raw, text);
  const streams = new Map<string, Stream>();

  /** Redacts `piece` after the context it follows, returning only the piece's part. */
  const release = (stream: Stream, piece: string): string => {
    if (piece === "") return "";
    const context = stream.before;
    stream.before = keepEnd(context + piece);
    const alone = text(context);
    const together = text(context + piece);
    return together.startsWith(alone) ? together.slice(alone.length) : text(piece);
  };

  const flush = (key: string, stream: Stream): AgentEvent[] => {
    streams.delete(key);
    const out = release(stream, stream.held);
    return out === "" ? [] : [withText(stream.template, out)];
  };

  // Every other stream of the agent: one stream's fragment ends the others (reasoning ends when the
  // answer starts), so what they hold goes out before it, never after (a second reasoning block).
  const flushAgent = (agent: string | undefined, except?: string): AgentEvent[] => {
    const out: AgentEvent[] = [];
    for (const [key, stream] of streams)
      if (key !== except && (stream.template.agent?.id ?? "") === (agent ?? ""))
        out.push(...flush(key, stream));
    return out;
  };

  return {
    text,
    value,
    redact(event) {
      if (!isStream(event)) return [...flushAgent(event.agent?.id), value(event)];
      const key = streamKey(event);
      const ended = flushAgent(event.agent?.id, key);
      // Fields beside the text are redacted as any event's; a later fragment names no tool.
      const template = value(withText(event, ""));
      const stream = streams.get(key) ?? {
        template: template.type === "tool_call_delta" ? { ...template, name: null } : template,
        held: "",
        before: "",
      };
      streams.set(key, stream);
      // What is held has no boundary in it: only the new fragment is searched (a long argument
      // with no space, base64 say, costs a scan of each fragment once, not of all it held again).
      const piece = textOf(event);
      let last = -1;
      for (const match of piece.matchAll(BOUNDARY)) last = match.index;
      const all = stream.held + piece;
      const cut = last < 0 ? -1 : stream.held.length + last;
      stream.held = all.slice(cut + 1);
      const out = release(stream, all.slice(0, cut + 1));
      // A tool call's first fragment names the tool: it goes out even with no text yet.
      const named = event.type === "tool_call_delta" && event.name !== null;
      if (out === "" && !named) return ended;
      return [...ended, withText(template, out)];
    },
  };
}

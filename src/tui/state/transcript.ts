import type { AgentEvent, ToolDetails, ToolErrorCode } from "../../protocol/index.ts";
import { formatCount } from "../../protocol/index.ts";
import { describeChildEvent } from "../../runtime/session/index.ts";
import { markdownCut } from "../markdown/index.ts";
import { endsRetries, retryKey, retryNoticeText } from "./retry-notice.ts";

/** The outcome of a tool call as the chat shows it. */
export type ToolOutcomeView =
  | {
      type: "result";
      isError: boolean;
      code: ToolErrorCode | null;
      content: string;
      details: ToolDetails | null;
    }
  | {
      type: "refused";
      cause: Extract<AgentEvent, { type: "tool_call_refused" }>["cause"];
      reason: string;
      bytesReceived: number;
    }
  | { type: "interrupted" };

/** One block of the chat. Committed entries never change again, so they can go to Ink's `<Static>`. */
export type Entry =
  | { type: "user"; id: number; text: string }
  /** Model text; `continued` when it carries on the previous assistant entry of the same message. */
  | { type: "assistant"; id: number; text: string; continued: boolean }
  | {
      type: "tool";
      id: number;
      callId: string;
      name: string;
      args: Record<string, unknown>;
      /** The permission request's summary, when the call needed approval. */
      summary: string | null;
      /** False while the call waits for approval, true once it runs. */
      started: boolean;
      outcome: ToolOutcomeView | null;
      /** The latest step a long call reported (research: "reading 2 of 3: …"). */
      progress?: string;
      /** The child agent this call runs (delegate, map, reader), its steps as one line each. */
      child?: ChildSteps;
      /** A running command's output so far: its last lines and how much there is. */
      live?: { tail: string; lines: number; bytes: number };
    }
  /** A failure shown in full; `code` is the error code, or the command that failed. */
  | {
      type: "error";
      id: number;
      code: string;
      title: string;
      message: string;
      /** The prompt ended before any request: nothing reached the model (an @-path, a hook...). */
      unsent?: boolean;
    }
  | {
      type: "info";
      id: number;
      text: string;
      /** `diff`: a unified diff (`/diff`), its lines coloured as such. */
      tone: "plain" | "dim" | "warn" | "good" | "diff";
      /** Lines "name\ttext" are a two-column table (`/help`, `/status`), laid out at the width. */
      table?: boolean;
    };

/** A child agent's steps, folded into the block of the parent's call that started it. */
export interface ChildSteps {
  /** The child and its kind, e.g. `agent-1 work`. */
  who: string;
  /** The latest steps (at most `keptChildSteps`), oldest first. */
  steps: readonly string[];
  /** Every step seen, kept or not. */
  count: number;
}

/** Steps kept per child block, for Ctrl-O to show in full. */
export const keptChildSteps = 200;

/** A tool call the model is still sending: its arguments are streaming in. */
export interface ReceivingCall {
  index: number;
  name: string | null;
  bytes: number;
}

/** The chat: committed entries plus what is still changing. */
export interface TranscriptState {
  entries: readonly Entry[];
  /** Model text not committed yet. */
  streaming: string;
  /** Whether `streaming` carries on text already committed for the same message. */
  streamingContinues: boolean;
  /** Tool calls started without a result yet. */
  running: readonly Extract<Entry, { type: "tool" }>[];
  receiving: readonly ReceivingCall[];
  /** The message of the last request given up, so that the terminal `error` that repeats it is not shown twice. */
  lastFailure: string | null;
  /** The kind of failure last said while retrying (see retry-notice.ts), so it is said once. */
  retrying?: string | undefined;
  /** Reasoning received since the last line that summarised it (shown collapsed). */
  reasoningChars?: number;
  reasoningText?: string;
  /** The last stretch of reasoning in full, for `/reasoning`. */
  lastReasoning?: string;
  /** A request was started since the last turn ended. */
  requested?: boolean;
  nextId: number;
}

export const initialTranscript: TranscriptState = {
  entries: [],
  streaming: "",
  streamingContinues: false,
  running: [],
  receiving: [],
  lastFailure: null,
  nextId: 1,
};

/** Streaming text past this many complete lines is committed at a block boundary, so the live region stays short. */
export const maxLiveLines = 6;
/** A block (paragraph, table, list) longer than this is committed at a line end all the same. */
export const maxLiveMarkdownLines = 60;

type EntryInput = Entry extends infer E ? (E extends Entry ? Omit<E, "id"> : never) : never;

/** Appends one committed entry. */
export function append(state: TranscriptState, entry: EntryInput): TranscriptState {
  return {
    ...state,
    entries: [...state.entries, { ...entry, id: state.nextId } as Entry],
    nextId: state.nextId + 1,
  };
}

/** Commits all streaming text (the message is over, or something else comes after it). */
function flushText(state: TranscriptState): TranscriptState {
  const text = state.streaming.replace(/\s+$/, "");
  const cleared = { ...state, streaming: "", streamingContinues: false };
  if (text.trim() === "") return cleared;
  return append(cleared, { type: "assistant", text, continued: state.streamingContinues });
}

/**
 * Commits the finished blocks of long streaming text (see markdown-blocks.ts), so that a table or a
 * code block is never cut where markdown would read it differently; the rest stays live.
 */
function commitCompleteLines(state: TranscriptState): TranscriptState {
  const cut = markdownCut(state.streaming, maxLiveLines, maxLiveMarkdownLines);
  if (!cut) return state;
  return append(
    { ...state, streaming: cut.rest, streamingContinues: !cut.gap },
    { type: "assistant", text: cut.done, continued: state.streamingContinues },
  );
}

function settleRunning(state: TranscriptState, outcome: ToolOutcomeView): TranscriptState {
  let next: TranscriptState = { ...state, running: [], receiving: [] };
  for (const tool of state.running) next = append(next, { ...tool, outcome });
  return next;
}

function finishCall(
  state: TranscriptState,
  callId: string,
  name: string,
  outcome: ToolOutcomeView,
  // A call refused before it started (a hook, a rule) brings its own arguments, so its block names it.
  refusedArgs?: Record<string, unknown>,
): TranscriptState {
  const flushed = flushText(state);
  const started = flushed.running.find((tool) => tool.callId === callId);
  const rest = { ...flushed, running: flushed.running.filter((tool) => tool.callId !== callId) };
  return append(rest, {
    type: "tool",
    callId,
    name,
    args: started?.args ?? refusedArgs ?? {},
    summary: started?.summary ?? null,
    started: started?.started ?? false,
    outcome,
    ...(started?.child ? { child: started.child } : {}),
  });
}

function failureTitle(event: Extract<AgentEvent, { type: "request_failed" }>): string {
  const what = event.status === null ? event.code : `${event.status}`;
  const tries = event.attempt > 1 ? ` after ${event.attempt} attempts` : "";
  return `Request failed: ${what} from ${event.host}${tries}`;
}

/** Folds one event into the chat. Reasoning is shown collapsed: one line with its size. */
export function reduceTranscript(state: TranscriptState, event: AgentEvent): TranscriptState {
  if (event.type === "reasoning_delta") {
    return {
      ...state,
      reasoningChars: (state.reasoningChars ?? 0) + event.text.length,
      reasoningText: (state.reasoningText ?? "") + event.text,
    };
  }
  if (state.reasoningChars && event.type !== "tool_call_delta" && event.type !== "usage") {
    const chars = state.reasoningChars;
    const summarised = append(
      {
        ...flushText(state),
        reasoningChars: 0,
        reasoningText: "",
        lastReasoning: state.reasoningText ?? "",
      },
      { type: "info", tone: "dim", text: reasoningLine(chars) },
    );
    return reduceEvent(summarised, event);
  }
  return reduceEvent(state, event);
}

/** The collapsed form of a stretch of reasoning. */
export function reasoningLine(chars: number): string {
  return `⋯ reasoning (${formatCount(chars)} characters, not shown; /reasoning shows it)`;
}

/** A request failed: said once per kind of retried failure, else as the error it is. */
function requestFailed(
  state: TranscriptState,
  event: Extract<AgentEvent, { type: "request_failed" }>,
): TranscriptState {
  const flushed = { ...flushText(state), receiving: [] };
  // An interrupt is reported once, by the `aborted` event that follows.
  if (event.code === "aborted") return flushed;
  if (event.retryInMs !== null) {
    // Said once per kind of failure; the status bar counts each wait down.
    const key = retryKey(event);
    if (state.retrying === key) return flushed;
    const text = retryNoticeText({ ...event, retryInMs: event.retryInMs });
    return { ...append(flushed, { type: "info", tone: "warn", text }), retrying: key };
  }
  return {
    ...append(flushed, {
      type: "error",
      code: event.code,
      title: failureTitle(event),
      message: event.message,
    }),
    lastFailure: event.message,
  };
}

/** A call asks for permission or starts: its block runs (replacing the one asking, if any). */
function callStarted(
  state: TranscriptState,
  event: Extract<AgentEvent, { type: "permission_requested" | "tool_call_started" }>,
): TranscriptState {
  const flushed = flushText(state);
  const known = flushed.running.find((t) => t.callId === event.callId);
  const tool = {
    type: "tool" as const,
    id: 0,
    callId: event.callId,
    name: event.name,
    args: event.type === "tool_call_started" ? event.args : (known?.args ?? {}),
    summary: event.type === "permission_requested" ? event.summary : (known?.summary ?? null),
    started: event.type === "tool_call_started",
    outcome: null,
  };
  const others = flushed.running.filter((t) => t.callId !== event.callId);
  return { ...flushed, receiving: [], running: [...others, tool] };
}

function reduceEvent(state: TranscriptState, event: AgentEvent): TranscriptState {
  if (state.retrying !== undefined && endsRetries(event))
    return reduceEvent({ ...state, retrying: undefined }, event);
  switch (event.type) {
    case "text_delta":
      return commitCompleteLines({ ...state, streaming: state.streaming + event.text });
    case "tool_call_delta": {
      const known = state.receiving.find((call) => call.index === event.index);
      const bytes = Buffer.byteLength(event.argumentsDelta, "utf8");
      const receiving = known
        ? state.receiving.map((call) =>
            call.index === event.index
              ? { ...call, name: call.name ?? event.name, bytes: call.bytes + bytes }
              : call,
          )
        : [...state.receiving, { index: event.index, name: event.name, bytes }];
      return { ...state, receiving };
    }
    case "request_finished":
      return { ...flushText(state), receiving: [] };
    case "request_started":
      return { ...state, lastFailure: null, receiving: [], requested: true };
    case "request_failed":
      return requestFailed(state, event);
    case "permission_requested":
    case "tool_call_started":
      return callStarted(state, event);
    case "tool_output":
      return {
        ...state,
        running: state.running.map((t) =>
          t.callId === event.callId
            ? { ...t, live: { tail: event.tail, lines: event.lines, bytes: event.bytes } }
            : t,
        ),
      };
    case "tool_progress":
      return {
        ...state,
        running: state.running.map((t) =>
          t.callId === event.callId ? { ...t, progress: event.message } : t,
        ),
      };
    case "tool_result":
      return finishCall(state, event.callId, event.name, {
        type: "result",
        isError: event.isError,
        code: event.code,
        content: event.content,
        details: event.details,
      });
    case "tool_call_refused":
      return finishCall(
        state,
        event.callId,
        event.name,
        {
          type: "refused",
          cause: event.cause,
          reason: event.reason,
          bytesReceived: event.bytesReceived,
        },
        event.args,
      );
    case "context_fitted":
      return append(flushText(state), { type: "info", tone: "dim", text: event.line });
    case "notice":
      return append(flushText(state), { type: "info", tone: "dim", text: event.message });
    case "note_delivered":
      // Shown where the model got it: after the tool result it rode with.
      return append(append(flushText(state), { type: "user", text: event.text }), {
        type: "info",
        tone: "dim",
        text:
          event.kind === "steer"
            ? "↳ steering note delivered"
            : "↳ delivered with the last tool result",
      });
    case "done":
      return { ...settleRunning(flushText(state), { type: "interrupted" }), requested: false };
    case "aborted": {
      const settled = {
        ...settleRunning(flushText(state), { type: "interrupted" }),
        requested: false,
      };
      const why = event.reason.trim() === "" ? "" : `: ${event.reason}`;
      return append(settled, { type: "info", tone: "warn", text: `Interrupted${why}.` });
    }
    case "error": {
      const settled = {
        ...settleRunning(flushText(state), { type: "interrupted" }),
        lastFailure: null,
        requested: false,
      };
      if (state.lastFailure !== null && state.lastFailure === event.message) return settled;
      // Refused before any request (an @-path or image that cannot be attached, a hook): the prompt
      // was not sent, which is what the user must know first; the chat puts it back to be fixed.
      if (!state.requested)
        return append(settled, {
          type: "error",
          code: event.code,
          title: "Prompt not sent: nothing reached the model",
          message: event.message,
          unsent: true,
        });
      return append(settled, {
        type: "error",
        code: event.code,
        title: `Turn failed: ${event.code}`,
        message: event.message,
      });
    }
    default:
      return state;
  }
}

/**
 * A child agent's event: one step in the block of the parent's call that runs it, so a child shows
 * as one block with its progress. A step whose block is gone (or never shown) is a line of its own.
 */
export function reduceChildEvent(state: TranscriptState, event: AgentEvent): TranscriptState {
  const agent = event.agent;
  const line = describeChildEvent(event);
  if (!agent || line === null) return state;
  const step = line.replace(/^\[[^\]]*\] /, "");
  const parent = state.running.find((t) => t.callId === agent.parentCallId);
  if (!parent) return append(flushText(state), { type: "info", tone: "dim", text: line });
  const who = `${agent.id} ${agent.kind}`;
  const before = parent.child;
  const child: ChildSteps = {
    who: before?.who ?? who,
    steps: [
      ...(before?.steps ?? []),
      before && before.who !== who ? `${who}: ${step}` : step,
    ].slice(-keptChildSteps),
    count: (before?.count ?? 0) + 1,
  };
  return {
    ...state,
    running: state.running.map((t) => (t.callId === parent.callId ? { ...t, child } : t)),
  };
}

import type { AgentEvent } from "../../protocol/index.ts";
import { initialMeter, type MeterState, reduceMeter } from "./meter.ts";
import { type QueuedNotes, reduceQueued } from "./queued-notes.ts";
import { initialStatus, permissionAnswered, reduceStatus, type StatusState } from "./status.ts";
import {
  append,
  type Entry,
  initialTranscript,
  reduceChildEvent,
  reduceTranscript,
  type TranscriptState,
} from "./transcript.ts";

/** A permission request waiting for the user's answer. */
export interface PendingPermission {
  callId: string;
  name: string;
  summary: string;
  /** A file tool's diff, shown before the answer. */
  preview?: string;
  /** What "allow for this session" would approve. */
  scope?: string;
}

/** Everything the TUI shows, folded from events (plus the user's own prompts and command output). */
export interface UiState {
  status: StatusState;
  transcript: TranscriptState;
  meter: MeterState;
  permissions: readonly PendingPermission[];
  /** Messages typed during the turn, waiting for a boundary. */
  queued: QueuedNotes;
}

export function initialUi(info: Parameters<typeof initialMeter>[0]): UiState {
  return {
    status: initialStatus,
    transcript: initialTranscript,
    meter: initialMeter(info),
    permissions: [],
    queued: [],
  };
}

function reducePermissions(
  list: readonly PendingPermission[],
  event: AgentEvent,
): readonly PendingPermission[] {
  switch (event.type) {
    case "permission_requested":
      if (list.some((p) => p.callId === event.callId)) return list;
      return [
        ...list,
        {
          callId: event.callId,
          name: event.name,
          summary: event.summary,
          ...(event.preview ? { preview: event.preview } : {}),
          ...(event.scope ? { scope: event.scope } : {}),
        },
      ];
    case "tool_result":
    case "tool_call_refused":
      return list.filter((p) => p.callId !== event.callId);
    case "done":
    case "error":
    case "aborted":
      return list.length === 0 ? list : [];
    default:
      return list;
  }
}

/** Folds one event into everything the TUI shows. */
export function reduceUi(state: UiState, event: AgentEvent, now: number): UiState {
  // A child agent's steps fold into its parent call's block; its approvals are asked like the parent's.
  if (event.agent && event.type !== "permission_requested")
    return { ...state, transcript: reduceChildEvent(state.transcript, event) };
  return {
    status: reduceStatus(state.status, event, now),
    transcript: reduceTranscript(state.transcript, event),
    meter: reduceMeter(state.meter, event),
    permissions: reducePermissions(state.permissions, event),
    queued: reduceQueued(state.queued, event),
  };
}

type NewEntry = Parameters<typeof append>[1];

/** Adds a line of the TUI's own (the user's prompt, a command's output) to the chat. */
export function addEntry(state: UiState, entry: NewEntry): UiState {
  return { ...state, transcript: append(state.transcript, entry) };
}

/** Drops an answered permission request from the queue. */
export function answered(state: UiState, callId: string): UiState {
  return {
    ...state,
    status: permissionAnswered(state.status, callId),
    permissions: state.permissions.filter((p) => p.callId !== callId),
  };
}

export type { Entry };

// Messages typed while the model works, as the chat shows them above the prompt until a turn
// boundary delivers them (runtime/user-notes.ts): steering notes marked apart, queued ones numbered.
import { Box, Text } from "ink";
import React from "react";
import type { AgentEvent } from "../../protocol/index.ts";
import { plainText } from "../../protocol/plain-text.ts";
import type { PendingNote } from "../../runtime/session/index.ts";
import { truncateEnd } from "../fit.ts";

const h = React.createElement;

// The live region has a row budget (fit.ts): a long queue shows its newest few and a count.
const SHOWN = 3;

/** The notes still waiting, oldest first. */
export type QueuedNotes = readonly PendingNote[];

/** A delivered note leaves the queue. */
export function reduceQueued(queued: QueuedNotes, event: AgentEvent): QueuedNotes {
  if (event.type === "note_queued")
    return [...queued, { id: event.id, kind: event.kind, text: event.text }];
  if (event.type === "note_delivered") return queued.filter((note) => note.id !== event.id);
  return queued;
}

/** The rows the queue takes on screen. */
export function queuedRows(queued: QueuedNotes): number {
  if (queued.length === 0) return 0;
  return Math.min(queued.length, SHOWN) + (queued.length > SHOWN ? 1 : 0) + 1;
}

/** One line per note, cut to the terminal's width. */
export function QueuedView(props: {
  queued: QueuedNotes;
  columns: number;
}): React.ReactElement | null {
  const { queued, columns } = props;
  if (queued.length === 0) return null;
  const shown = queued.slice(-SHOWN);
  const width = Math.max(10, columns - 2);
  const line = (note: PendingNote) => {
    const label = note.kind === "steer" ? "steer ›" : `queued ${queued.indexOf(note) + 1} ›`;
    const text = plainText(note.text).replace(/\s+/g, " ");
    return truncateEnd(`${label} ${text}`, width);
  };
  return h(
    Box,
    { flexDirection: "column" },
    queued.length > SHOWN
      ? h(Text, { dimColor: true }, `… ${queued.length - SHOWN} more waiting`)
      : null,
    ...shown.map((note) =>
      h(
        Text,
        {
          key: note.id,
          dimColor: note.kind !== "steer",
          color: note.kind === "steer" ? "cyan" : undefined,
        },
        line(note),
      ),
    ),
    h(
      Text,
      { dimColor: true, wrap: "truncate-end" },
      "Sent with the next tool result · ↑ on an empty prompt takes the last one back",
    ),
  );
}

import { createParser, type EventSourceMessage } from "eventsource-parser";

/** One server-sent event. */
export type SseEvent = EventSourceMessage;

/** Server-sent events from a body's chunks. As the SSE spec says, an event not ended by its blank line is dropped. */
export async function* sseEvents(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const pending: SseEvent[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  for await (const chunk of chunks) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (pending.length > 0) yield pending.shift() as SseEvent;
  }
  parser.feed(decoder.decode());
  while (pending.length > 0) yield pending.shift() as SseEvent;
}

/** Parses an event's data as JSON; undefined when it is not JSON. */
export function eventJson(event: SseEvent): unknown {
  try {
    return JSON.parse(event.data);
  } catch {
    return undefined;
  }
}

import type { Journal } from "../../session/index.ts";
import type { ImageStore, JournalSink } from "../session/index.ts";

/** Adapts the session journal to what a running session writes. */
export function journalSink(journal: Journal, images?: ImageStore): JournalSink {
  return {
    message: (message) => journal.appendMessage(images ? images.stored(message) : message),
    event: (event) => journal.appendEvent(event),
    ledger: (record) => journal.appendLedger(record),
    checkpoint: (turn, description) => journal.appendCheckpoint(turn, description),
    usage: (inputTokens, outputTokens) => journal.appendUsage({ inputTokens, outputTokens }),
    cleared: () => journal.appendClear(),
    rewound: (drop) => journal.appendRewind(drop),
    sync: () => journal.syncTurn(),
    close: () => journal.close(),
  };
}

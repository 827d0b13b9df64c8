// Messages the user types while the model works. They wait here, each removable until it is
// delivered, and reach the model at the next turn boundary with the next tool result (as the turn
// notes do: no request is sent for them, and the wire never carries two user messages in a row).
// Steering notes go first; queued ones follow in the order they were typed. What no boundary took
// before the prompt ended is the UI's to send as the next prompt (`takeAll`).
import type { NoteKind } from "../../../protocol/index.ts";

/** A message typed during a turn, not delivered yet. */
export interface PendingNote {
  id: number;
  kind: NoteKind;
  text: string;
}

// One message is a prompt's worth of text; a paste of a whole log is sent as a prompt instead.
const MAX_NOTE_CHARS = 64 * 1024;
// Messages waiting at once: a person types a few; an orchestrator flooding the stream is bounded.
const MAX_PENDING = 50;

/** The session's pending notes. */
export class UserNotes {
  private notes: PendingNote[] = [];
  private lastId = 0;

  /** Adds a message, or says why it cannot wait as a note. */
  add(text: string, kind: NoteKind): PendingNote | { refused: string } {
    const trimmed = text.trim();
    if (trimmed === "") return { refused: "an empty message is not sent" };
    if (trimmed.length > MAX_NOTE_CHARS)
      return {
        refused: `a message of ${trimmed.length} characters is too long to add to a running turn; send it as a prompt once the turn ends`,
      };
    if (this.notes.length >= MAX_PENDING)
      return {
        refused: `${MAX_PENDING} messages are already waiting for this turn; send more once it ends`,
      };
    this.lastId += 1;
    const note = { id: this.lastId, kind, text: trimmed };
    this.notes.push(note);
    return note;
  }

  /** Takes a note back (to edit or drop it): false when it was delivered already. */
  remove(id: number): boolean {
    const before = this.notes.length;
    this.notes = this.notes.filter((note) => note.id !== id);
    return this.notes.length < before;
  }

  pending(): readonly PendingNote[] {
    return this.notes;
  }

  /** Every pending note, steering ones first, and none left. */
  takeAll(): PendingNote[] {
    // Asked at every tool result: the common answer is nothing, without allocating.
    if (this.notes.length === 0) return [];
    const taken = [
      ...this.notes.filter((note) => note.kind === "steer"),
      ...this.notes.filter((note) => note.kind === "queued"),
    ];
    this.notes = [];
    return taken;
  }
}

/** How a delivered note reads to the model, after the tool result it rides with. */
export function noteForModel(note: PendingNote): string {
  return note.kind === "steer"
    ? `The user sent a steering note while you worked; take it into account before your next step: ${note.text}`
    : `The user sent a message while you worked (it waited for this turn to end): ${note.text}`;
}

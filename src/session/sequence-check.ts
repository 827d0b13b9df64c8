/**
 * Message records carry consecutive `seq` numbers, so reading a journal backwards each message must be
 * numbered one below the newer one. A number at or above that means another writer's records are mixed
 * in (two nex processes on one session, before sessions were locked) or the file was spliced: those
 * records are left out, so the conversation stays one line of messages, and the user is told that the
 * journal is damaged, never that messages "did not fit". A number below it is a gap (a corrupt line
 * that was skipped, already warned about, or lines cut out of the file).
 */
export class SequenceCheck {
  #expected: number | null = null;
  #strays = 0;
  #strayLow = Number.POSITIVE_INFINITY;
  #strayHigh = 0;
  #missing = 0;

  /** Records were left out as not belonging to the line. */
  get damaged(): boolean {
    return this.#strays > 0;
  }

  /** Feeds the next older message's `seq`; false when the record does not belong to the line. */
  follows(seq: number): boolean {
    const expected = this.#expected;
    if (expected !== null && seq > expected) {
      this.#strays++;
      this.#strayLow = Math.min(this.#strayLow, seq);
      this.#strayHigh = Math.max(this.#strayHigh, seq);
      return false;
    }
    if (expected !== null && seq < expected) this.#missing += expected - seq;
    this.#expected = seq - 1;
    return true;
  }

  /** Sets the newest message's `seq` (the start of the line). */
  start(seq: number): void {
    this.#expected = seq - 1;
  }

  /** The warning for the user, or null when the numbers ran clean. */
  describe(path: string, otherWarnings: boolean): string | null {
    if (this.#strays > 0) {
      const range =
        this.#strayLow === this.#strayHigh
          ? `number ${this.#strayLow}`
          : `numbers ${this.#strayLow}-${this.#strayHigh}`;
      return (
        `The journal is damaged: ${this.#strays} message record(s) repeat or break the message order (${range}), ` +
        "as when two nex processes wrote this session at once. They were left out of the conversation, which " +
        `continues from the newest consistent line of messages; the journal file keeps them: ${path}.`
      );
    }
    // A skipped corrupt line explains a gap and was already reported.
    if (this.#missing > 0 && !otherWarnings) {
      return `The journal is missing ${this.#missing} message record(s) (their numbers are absent from ${path}); the conversation resumes without them.`;
    }
    return null;
  }
}

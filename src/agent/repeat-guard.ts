/** A call repeated with the same result this many turns in a row is not run again. */
export const REPEAT_LIMIT = 2;

/** A read-only call that returned the same result this many times with nothing changed since is not run again. */
export const READ_REPEAT_LIMIT = 2;

/**
 * Notices a model that makes the same call turn after turn and gets the same result each time
 * (reading one file fifty times): the result cannot change, so the call is refused instead. A
 * read-only call is also refused when it already answered twice and nothing that could change its
 * answer ran since (a model reading A, B, A, B, ...), wherever the repeats fell.
 */
export class RepeatGuard {
  private readonly seen = new Map<string, { turn: number; result: string; streak: number }>();
  private readonly reads = new Map<string, { epoch: number; result: string; count: number }>();
  // Bumped whenever a call that can change the workspace runs: older read results may be stale.
  private epoch = 0;

  /** Why this call is not worth running again, or null. */
  stuck(signature: string, turn: number, readOnly: boolean): string | null {
    const previous = this.seen.get(signature);
    if (previous && previous.turn === turn - 1 && previous.streak >= REPEAT_LIMIT) {
      previous.turn = turn;
      return `returned the same result in each of the last ${REPEAT_LIMIT} turns`;
    }
    const read = readOnly ? this.reads.get(signature) : undefined;
    if (read && read.epoch === this.epoch && read.count >= READ_REPEAT_LIMIT) {
      return `already returned the same result ${read.count} times, and nothing has changed since`;
    }
    return null;
  }

  /** Notes what a call returned in this turn. */
  record(signature: string, turn: number, result: string, readOnly: boolean): void {
    const fingerprint = digest(result);
    const previous = this.seen.get(signature);
    const same = previous && previous.turn === turn - 1 && previous.result === fingerprint;
    this.seen.set(signature, { turn, result: fingerprint, streak: same ? previous.streak + 1 : 1 });
    if (!readOnly) {
      this.epoch++;
      return;
    }
    const read = this.reads.get(signature);
    const again = read && read.epoch === this.epoch && read.result === fingerprint;
    this.reads.set(signature, {
      epoch: this.epoch,
      result: fingerprint,
      count: again ? read.count + 1 : 1,
    });
  }

  /** The conversation was compacted: the model may no longer have what it read, so reading again is fair. */
  forgetReads(): void {
    this.reads.clear();
  }
}
/** The identity of a call: its tool and its arguments. */
export function callSignature(name: string, args: Record<string, unknown>): string {
  return `${name}:${JSON.stringify(args)}`;
}

/** A short fingerprint (length and FNV-1a) of a text: results can be whole files, and signatures long. */
export function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${text.length}:${(hash >>> 0).toString(16)}`;
}

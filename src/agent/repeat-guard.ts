/** A call repeated with the same result this many turns in a row is not run again. */
export const REPEAT_LIMIT = 2;

/**
 * Notices a model that makes the same call turn after turn and gets the same result each time
 * (reading one file fifty times): the result cannot change, so the call is refused instead.
 */
export class RepeatGuard {
  private readonly seen = new Map<string, { turn: number; result: string; streak: number }>();

  /** True when this exact call returned the same result in each of the last `REPEAT_LIMIT` turns. */
  isStuck(signature: string, turn: number): boolean {
    const previous = this.seen.get(signature);
    if (!previous || previous.turn !== turn - 1 || previous.streak < REPEAT_LIMIT) return false;
    previous.turn = turn;
    return true;
  }

  /** Notes what a call returned in this turn. */
  record(signature: string, turn: number, result: string): void {
    const fingerprint = digest(result);
    const previous = this.seen.get(signature);
    const same = previous && previous.turn === turn - 1 && previous.result === fingerprint;
    this.seen.set(signature, { turn, result: fingerprint, streak: same ? previous.streak + 1 : 1 });
  }
}

/** The identity of a call: its tool and its arguments. */
export function callSignature(name: string, args: Record<string, unknown>): string {
  return `${name}:${JSON.stringify(args)}`;
}

// Results can be whole files; keep a short fingerprint (length and FNV-1a) rather than the text.
function digest(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `${text.length}:${(hash >>> 0).toString(16)}`;
}

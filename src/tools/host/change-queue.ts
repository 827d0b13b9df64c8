/** Runs changing calls in order: one at a time, or beside the others of a kind that may. */
export interface ChangeQueue {
  /** After every change queued so far and every call running beside; the next change waits for it. */
  serial<T>(work: () => Promise<T>): Promise<T>;
  /** After the changes queued so far, beside the others of its kind; the next change waits for it. */
  beside<T>(work: () => Promise<T>): Promise<T>;
}

/** Changes run one at a time, so checkpoints, staged parts and the ledger see them in order. */
export function createChangeQueue(): ChangeQueue {
  let changes: Promise<unknown> = Promise.resolve();
  // Calls of a changing tool that may run beside one another (see `Tool.parallel`), in flight.
  const besides = new Set<Promise<unknown>>();
  return {
    serial<T>(work: () => Promise<T>): Promise<T> {
      const after = changes.then(() => Promise.allSettled([...besides]));
      const next = after.then(work, work);
      changes = next.catch(() => {});
      return next;
    },
    beside<T>(work: () => Promise<T>): Promise<T> {
      const next = changes.then(work, work);
      const settled = next.catch(() => {});
      besides.add(settled);
      void settled.then(() => besides.delete(settled));
      return next;
    },
  };
}

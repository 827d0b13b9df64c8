// A timeout that judges silence by what arrived, not by when nex looked.

/**
 * Calls `expire` once `ms` have passed, but only after the I/O that was waiting when the time came
 * has been read. A process held busy past a deadline (a loaded machine, a local model server on the
 * same cores) finds its timers due before its sockets are read: bytes that came in time would
 * otherwise be taken for silence. Returns the function that cancels it.
 */
export function deadlineAfterPendingIo(expire: () => void, ms: number): () => void {
  let immediate: ReturnType<typeof setImmediate> | undefined;
  // Timers run before the loop polls its sockets; immediates run after.
  const timer = setTimeout(() => {
    immediate = setImmediate(expire);
  }, ms);
  return () => {
    clearTimeout(timer);
    if (immediate) clearImmediate(immediate);
  };
}

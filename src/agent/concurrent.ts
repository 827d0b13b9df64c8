/**
 * Drives several generators at once (at most `limit` in flight), yielding their events as they come
 * and returning their results in the order the generators were given.
 */
export async function* concurrently<E, R>(
  generators: AsyncGenerator<E, R>[],
  limit: number,
): AsyncGenerator<E, R[]> {
  const results = new Array<R>(generators.length);
  const inFlight = new Map<number, Promise<{ index: number; step: IteratorResult<E, R> }>>();
  let started = 0;
  const pull = (index: number): void => {
    const generator = generators[index];
    if (!generator) return;
    inFlight.set(
      index,
      generator.next().then((step) => ({ index, step })),
    );
  };
  while (started < generators.length && inFlight.size < limit) pull(started++);
  try {
    while (inFlight.size > 0) {
      const { index, step } = await Promise.race(inFlight.values());
      if (step.done) {
        results[index] = step.value;
        inFlight.delete(index);
        if (started < generators.length) pull(started++);
      } else {
        yield step.value;
        pull(index);
      }
    }
    return results;
  } finally {
    // A failure or an early stop leaves the others mid-way: their pending steps must not reject
    // unobserved, and each is told to finish.
    for (const [index, pending] of inFlight) {
      pending.catch(() => {});
      void generators[index]?.return(undefined as R).catch(() => {});
    }
  }
}

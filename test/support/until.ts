// Waiting in tests for something observable, never for a span of time taken as a proxy for it.

/**
 * How long a wait lasts before it fails naming what it waited for. It bounds a wait for something
 * that never comes and is no measure of speed: on a loaded 2-core machine the program under test and
 * the test process may each be starved for seconds at any moment, so it is far longer than any step
 * takes there (speed is measured in bench/).
 */
export const patienceMs = 90_000;

/** Resolves once `condition` holds (checked every 25 ms), or fails naming `what` after `timeoutMs`. */
export async function until(
  condition: () => boolean,
  what: string,
  timeoutMs = patienceMs,
): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

// Services without a key ask for a gap between requests (arXiv: three seconds; DuckDuckGo's HTML
// page answers a burst with a bot check). One queue per service for the whole process: a request
// waits its turn until the gap since the previous one has passed, or its signal ends the wait.

const previous = new Map<string, Promise<number>>();

/** Resolves when `gapMs` have passed since the last request to `service` began; throws if aborted. */
export function spaced(service: string, gapMs: number, signal: AbortSignal): Promise<void> {
  const mine = (previous.get(service) ?? Promise.resolve(0)).then(async (last) => {
    const wait = last + gapMs - Date.now();
    if (wait > 0 && !signal.aborted)
      await new Promise<void>((resolve) => {
        const stop = () => {
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          signal.removeEventListener("abort", stop);
          resolve();
        }, wait);
        signal.addEventListener("abort", stop, { once: true });
      });
    // An aborted wait does not hold the next request back.
    return signal.aborted ? last : Date.now();
  });
  previous.set(service, mine);
  return mine.then(() => signal.throwIfAborted());
}

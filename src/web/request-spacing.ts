// Services without a key ask for a gap between requests (arXiv: three seconds; DuckDuckGo's HTML
// page answers a burst with a bot check). One queue per service for the whole process: a request
// runs in its turn, one at a time, and the gap counts from the end of the previous one, so the
// service sees the gap however late a loaded machine or a slow network delivers a request.

const previous = new Map<string, Promise<number>>();

/** A request's turn: when the request before it ended, and how this one went if it ran. */
type Turn<T> = { before: number; outcome?: { value: T } | { error: unknown } };

/**
 * Runs `request` once `gapMs` have passed since the previous request to `service` ended; an abort of
 * `signal` while waiting throws its reason, without running the request or holding the next one back.
 */
export function spaced<T>(
  service: string,
  gapMs: number,
  signal: AbortSignal,
  request: () => Promise<T>,
): Promise<T> {
  const turn = (previous.get(service) ?? Promise.resolve(0)).then(
    async (before): Promise<Turn<T>> => {
      await pause(before + gapMs - Date.now(), signal);
      if (signal.aborted) return { before };
      try {
        return { before, outcome: { value: await request() } };
      } catch (error) {
        return { before, outcome: { error } };
      }
    },
  );
  previous.set(
    service,
    turn.then((mine) => (mine.outcome ? Date.now() : mine.before)),
  );
  return turn.then((mine) => {
    if (!mine.outcome) throw signal.reason;
    if ("error" in mine.outcome) throw mine.outcome.error;
    return mine.outcome.value;
  });
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}

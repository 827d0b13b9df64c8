/** The signals that mean "stop nex": Ctrl-C (or `kill -INT`), `kill`/a supervisor/a CI cancel, a closed terminal. */
export type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** The exit status of a run a signal stopped: 128 + the signal's number, as shells report it. */
export const SIGNAL_EXIT: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

const SIGNALS: StopSignal[] = ["SIGINT", "SIGTERM", "SIGHUP"];

// Under the launcher's re-exec (`bin/nex.js` on an old Node) a terminal's Ctrl-C or hang-up reaches
// both processes, and the launcher forwards its copy: the same signal twice this close together is one.
const FORWARDED_TWIN_MS = 300;
const PARENT_CHECK_MS = 1000;

/**
 * Calls `onStop` for each stop signal this process receives, with how many arrived so far (the first
 * asks for a clean stop, a later one for an immediate exit). Under the launcher's re-exec, the death
 * of the launcher (SIGKILL, say) counts as a SIGHUP: nobody is left to wait for this process.
 * Returns a function that removes the handlers.
 */
export function onStopSignals(onStop: (signal: StopSignal, count: number) => void): () => void {
  const reexec = process.env.NEX_REEXEC === "1";
  let count = 0;
  let last: { signal: StopSignal; at: number } | null = null;
  const handle = (signal: StopSignal): void => {
    const now = performance.now();
    if (reexec && last?.signal === signal && now - last.at < FORWARDED_TWIN_MS) return;
    last = { signal, at: now };
    count++;
    onStop(signal, count);
  };
  const handlers = SIGNALS.map((signal) => {
    const handler = () => handle(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  const parent = process.ppid;
  const watch = reexec
    ? setInterval(() => {
        if (process.ppid === parent) return;
        clearInterval(watch ?? undefined);
        handle("SIGHUP");
      }, PARENT_CHECK_MS).unref()
    : null;
  return () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    if (watch) clearInterval(watch);
  };
}

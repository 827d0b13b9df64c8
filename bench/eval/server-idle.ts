// A task's first request must not queue behind an earlier task's. llama-server goes on reading a
// prompt whose client has gone (a task stopped by its time budget), and the next request then lands
// on another slot with an empty prompt cache and shares the one thread with it: in run r8 the
// `checklist` task got no answer in 8 minutes while the server still read `big-log`'s abandoned
// 4,000-token prompt. So before each task the runner waits, politely, until no slot is busy.

/** How long the runner waited for the server to finish earlier work, and whether it ever did. */
export interface IdleWait {
  waitedMs: number;
  /** The server still had a busy slot when the wait's bound ran out. */
  stillBusy: boolean;
  /** The server does not say whether it is busy (no llama.cpp `/slots`): nothing was waited for. */
  unknown: boolean;
}

export interface IdleOptions {
  /** Time between two looks at `/slots` (a look is one small GET). */
  pollMs?: number;
  /** The longest wait; then the task runs anyway and the record says the server was busy. */
  maxWaitMs?: number;
}

/** Waits until llama-server's `/slots` shows no slot processing, within the bound. */
export async function waitForIdleServer(
  baseUrl: string,
  options: IdleOptions = {},
): Promise<IdleWait> {
  const pollMs = options.pollMs ?? 5_000;
  const maxWaitMs = options.maxWaitMs ?? 15 * 60_000;
  const started = performance.now();
  const waited = () => Math.round(performance.now() - started);
  for (;;) {
    const busy = await busySlots(baseUrl);
    if (busy === null) return { waitedMs: waited(), stillBusy: false, unknown: true };
    if (busy === 0) return { waitedMs: waited(), stillBusy: false, unknown: false };
    if (waited() + pollMs > maxWaitMs)
      return { waitedMs: waited(), stillBusy: true, unknown: false };
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** The number of slots processing a task, or null when the server does not say. */
async function busySlots(baseUrl: string): Promise<number | null> {
  const root = baseUrl.replace(/\/+$/, "").replace(/\/v1$/, "");
  try {
    const response = await fetch(`${root}/slots`, { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) return null;
    const slots = (await response.json()) as unknown;
    if (!Array.isArray(slots)) return null;
    return slots.filter((slot) => (slot as { is_processing?: unknown }).is_processing === true)
      .length;
  } catch {
    return null;
  }
}

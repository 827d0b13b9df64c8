// After nex stops reading a response itself (a loop, a flood far past max_tokens), llama-server goes
// on generating until it next writes to the closed connection, and a request sent at once lands on
// another slot with an empty prompt cache: in bench/eval's r11, the reminder after a cut loop re-read
// its whole 2,700-token prompt for four minutes on a free slot, while the cut slot, which held that
// prompt, was released only after it. So the next request first waits, briefly and politely, until the
// server's `/slots` shows no slot busy. A server without `/slots` (anything but llama.cpp) is not waited for.
import { type HttpFetch, readText } from "./http/index.ts";

/** Time between two looks at `/slots`, and the longest wait before the next request goes anyway. */
const POLL_MS = 500;
const MAX_WAIT_MS = 10_000;

export async function settleAfterCut(
  fetch: HttpFetch,
  requestUrl: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<void> {
  const root = requestUrl.replace(/\/v1\/[^?#]*$/, "");
  if (root === requestUrl) return;
  const started = performance.now();
  while (!signal.aborted && performance.now() - started < MAX_WAIT_MS) {
    if (!(await anySlotBusy(fetch, `${root}/slots`, headers, signal))) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** True while some slot is processing; false when none is, or when the server does not say. */
async function anySlotBusy(
  fetch: HttpFetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    const response = await fetch(url, {
      method: "GET",
      headers,
      signal: AbortSignal.any([signal, AbortSignal.timeout(2_000)]),
    });
    // A slot list is a few KB per slot; anything far larger is not one.
    const text = await readText(response.body, 1_000_000);
    if (!response.ok || text === null) return false;
    const slots = JSON.parse(text) as unknown;
    return Array.isArray(slots) && slots.some((slot) => slot?.is_processing === true);
  } catch {
    return false;
  }
}

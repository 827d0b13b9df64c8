// A usage report is the endpoint's word on how big the prompt was, and the budget builds on it. A report
// no request could have produced (more prompt tokens than the window holds, negative or fractional
// counts) is a broken server or proxy: trusting it would make nex compact before every turn, or size
// requests by nonsense. Such a report is not used for budgeting; nex keeps its own estimate.

/** Why a report cannot be true, or null when it may be. */
export function absurdUsage(
  inputTokens: number,
  outputTokens: number,
  window: number,
): string | null {
  const count = (n: number) => Number.isSafeInteger(n) && n >= 0;
  if (!count(inputTokens) || !count(outputTokens)) {
    return `counts that are not token counts (${inputTokens} prompt, ${outputTokens} output)`;
  }
  // A prompt larger than the window could not have been read: the server would have refused it.
  if (window > 0 && inputTokens > window) {
    return `${formatCount(inputTokens)} prompt tokens, more than the whole ${formatCount(window)}-token window`;
  }
  return null;
}

/** The notice for the user, once per session. */
export function absurdUsageNotice(why: string): string {
  return (
    `The endpoint reported ${why}. nex does not use this report to size requests and keeps its own estimate. ` +
    "If the model's window is really larger, set it under `models` in nex's config; otherwise check the server or proxy that reports usage."
  );
}

import { formatCount } from "../../protocol/index.ts";

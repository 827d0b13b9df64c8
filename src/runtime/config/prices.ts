// What a session cost, when the model's prices are known: list prices of common hosted models (USD
// per million tokens, as published when this table was written), which a config entry overrides
// (`models."name".price`). Local and unknown models have no price: nothing is guessed.
import { formatCount } from "../../protocol/counts.ts";

/** USD per million tokens. Cache prices default to the input price. */
export interface Price {
  input: number;
  output: number;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
}

// Most specific first: the first match wins.
const LIST_PRICES: Array<[RegExp, Price]> = [
  [/claude-opus-4-[5-9]/i, { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 }],
  [/claude-opus-4|claude-3-opus/i, { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 }],
  [
    /claude-(sonnet-4|3-7-sonnet|3-5-sonnet)/i,
    { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
  ],
  [/claude-haiku-4/i, { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 }],
  [/claude-3-5-haiku/i, { input: 0.8, output: 4, cacheRead: 0.08, cacheWrite: 1 }],
  [/gpt-4o-mini/i, { input: 0.15, output: 0.6, cacheRead: 0.075 }],
  [/gpt-4o/i, { input: 2.5, output: 10, cacheRead: 1.25 }],
  [/gpt-4\.1-nano/i, { input: 0.1, output: 0.4, cacheRead: 0.025 }],
  [/gpt-4\.1-mini/i, { input: 0.4, output: 1.6, cacheRead: 0.1 }],
  [/gpt-4\.1/i, { input: 2, output: 8, cacheRead: 0.5 }],
  [/gpt-5-nano/i, { input: 0.05, output: 0.4, cacheRead: 0.005 }],
  [/gpt-5-mini/i, { input: 0.25, output: 2, cacheRead: 0.025 }],
  [/gpt-5/i, { input: 1.25, output: 10, cacheRead: 0.125 }],
];

/** The model's price: the config's, else the list price, else null (unknown). */
export function priceFor(model: string, configured?: Price): Price | null {
  if (configured) return configured;
  return LIST_PRICES.find(([pattern]) => pattern.test(model))?.[1] ?? null;
}

/** Token totals as the usage events count them: input includes the cached part. */
export interface TokenTotals {
  inputTokens: number;
  outputTokens: number;
  cacheReadTotal: number;
  cacheWriteTotal: number;
}

/** USD for `totals` at `price`. */
export function costOf(price: Price, totals: TokenTotals): number {
  const plain = Math.max(0, totals.inputTokens - totals.cacheReadTotal - totals.cacheWriteTotal);
  return (
    (plain * price.input +
      totals.cacheReadTotal * (price.cacheRead ?? price.input) +
      totals.cacheWriteTotal * (price.cacheWrite ?? price.input) +
      totals.outputTokens * price.output) /
    1_000_000
  );
}

/** `$0.42`, or `$0.0031` for small sums (a cent is not precise enough for a short chat). */
export function formatUsd(usd: number): string {
  return usd >= 1
    ? `$${usd.toFixed(2)}`
    : `$${usd
        .toPrecision(2)
        .replace(/(\.\d*?)0+$/, "$1")
        .replace(/\.$/, "")}`;
}

/** One line of tokens and cost for `/status` and the exit. */
export function usageLine(model: string, price: Price | null, totals: TokenTotals): string {
  const tokens = `${formatCount(totals.inputTokens)} in, ${formatCount(totals.outputTokens)} out`;
  if (!price)
    return `${tokens} (no price known for ${model}; set models."${model}".price in the config to see the cost)`;
  return `${tokens} · ${formatUsd(costOf(price, totals))} at $${price.input}/$${price.output} per million in/out`;
}

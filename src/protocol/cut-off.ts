/**
 * Which limit cut a response off, in the words every message uses: nex's own `max_tokens`, or the
 * endpoint's (a `length` stop below it: vLLM's max_model_len, a gateway's cap). Without usage nex
 * cannot tell, and names its own limit, the one the user can change.
 */
export function cutOffBy(outputTokens: number | null, maxTokens: number): string {
  return outputTokens === null || outputTokens >= maxTokens
    ? `at the ${maxTokens}-token output limit`
    : `by the endpoint's own length limit after ${outputTokens} tokens (nex allowed ${maxTokens})`;
}

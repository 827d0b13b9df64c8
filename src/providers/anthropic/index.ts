// Anthropic's wire client: loaded by `../lazy-wires.ts` on a session's first Anthropic request.
export { type AnthropicClientOptions, createAnthropicClient } from "./anthropic.ts";

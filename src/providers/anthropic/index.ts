export type { AnthropicClientOptions } from "./anthropic-lazy.ts";
export { createAnthropicClient } from "./anthropic-lazy.ts";

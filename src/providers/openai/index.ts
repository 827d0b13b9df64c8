export type { OpenAIClientOptions } from "./openai.ts";
export { createOpenAIClient } from "./openai.ts";
export { historyArguments } from "./openai-wire.ts";

export type { OpenAIClientOptions } from "./openai.ts";
export { createOpenAIClient } from "./openai.ts";
export { forEachWireMessage, historyArguments, TOOL_IMAGES_NOTE } from "./openai-wire.ts";

// The OpenAI Responses API client (`"api": "responses"`): loaded by `../lazy-wires.ts` on a session's
// first request to a model that speaks it.
export { createResponsesClient, type ResponsesClientOptions } from "./responses.ts";

// What a healthy OpenAI-compatible endpoint answers to `nex doctor`, for the tests that need one
// passing: the doctor's own tests and the docs' examples.
import { json, openaiText, openaiToolCall, type Script, sse } from "./stub-scripts.ts";

/** A model list that also states the window, as vLLM does, so discovery needs no further probe. */
export const modelList = (ids: string[], window = 32_768): Script =>
  json({ object: "list", data: ids.map((id) => ({ id, object: "model", max_model_len: window })) });

/** A streamed 200 answer of the given SSE parts. */
export const stream = (parts: string[]): Script => ({
  type: "stream",
  status: 200,
  headers: { "content-type": "text/event-stream" },
  parts,
});

/** An OpenAI answer whose usage says how much of the prompt came from the server's cache. */
export const cachedOpenAI = (cached: number): Script =>
  stream([
    sse({ choices: [{ index: 0, delta: { role: "assistant", content: "ok" } }] }),
    sse({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }),
    sse({
      choices: [],
      usage: {
        prompt_tokens: 5300,
        completion_tokens: 1,
        prompt_tokens_details: { cached_tokens: cached },
      },
    }),
    sse("[DONE]"),
  ]);

/**
 * The model requests of a healthy OpenAI endpoint: plain text, a tool call, a cut answer, then two
 * sharing a long prefix (the second read from the cache).
 */
export const healthyOpenAI = (): Script[] => [
  openaiText("ok"),
  openaiToolCall({ name: "record_word", args: { word: "ready" } }),
  openaiText("1 2 3", { finishReason: "length", usage: { input: 30, output: 5 } }),
  cachedOpenAI(0),
  cachedOpenAI(5200),
];

// The Responses API client, loaded with its wire modules only when a session's endpoint or model is
// set to `"api": "responses"`: a plain run never loads it (lazy-client.ts).
import type { StreamFn } from "../protocol/index.ts";
import { lazyClient } from "./lazy-client.ts";
import type { ResponsesClientOptions } from "./responses.ts";

export type { ResponsesClientOptions } from "./responses.ts";

/** A client that loads the Responses wire on its first request. */
export function createResponsesClient(options: ResponsesClientOptions): StreamFn {
  return lazyClient(() =>
    import("./responses.ts").then((wire) => wire.createResponsesClient(options)),
  );
}

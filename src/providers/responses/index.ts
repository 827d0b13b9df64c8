// The OpenAI Responses API client (`"api": "responses"`), loaded with its wire modules only when a
// session's model speaks it.
import type { StreamFn } from "../../protocol/index.ts";
import { lazyClient } from "../lazy-client.ts";
import type { ResponsesClientOptions } from "./responses.ts";

export type { ResponsesClientOptions } from "./responses.ts";

/** A client that loads the Responses API wire on its first request. */
export function createResponsesClient(options: ResponsesClientOptions): StreamFn {
  return lazyClient(() =>
    import("./responses.ts").then((wire) => wire.createResponsesClient(options)),
  );
}

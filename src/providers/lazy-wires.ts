// The Anthropic and Responses API clients, each loaded with its wire modules on its first request:
// most sessions speak one wire, and every module loaded costs start-up time (a plain run loads
// neither; test/cli/lazy-wires.test.ts). One file for both, so start-up loads one module, not three.
import type { StreamFn } from "../protocol/index.ts";
import type { AnthropicClientOptions } from "./anthropic.ts";
import type { ResponsesClientOptions } from "./responses.ts";

export type { AnthropicClientOptions } from "./anthropic.ts";
export type { ResponsesClientOptions } from "./responses.ts";

/** A client that loads the Anthropic wire on its first request. */
export function createAnthropicClient(options: AnthropicClientOptions): StreamFn {
  return lazyClient(() =>
    import("./anthropic.ts").then((wire) => wire.createAnthropicClient(options)),
  );
}

/** A client that loads the Responses API wire on its first request (`"api": "responses"`). */
export function createResponsesClient(options: ResponsesClientOptions): StreamFn {
  return lazyClient(() =>
    import("./responses.ts").then((wire) => wire.createResponsesClient(options)),
  );
}

function lazyClient(load: () => Promise<StreamFn>): StreamFn {
  let client: Promise<StreamFn> | undefined;
  return async function* (request, signal) {
    client ??= load();
    yield* (await client)(request, signal);
  };
}

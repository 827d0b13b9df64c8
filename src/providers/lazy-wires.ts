// The Anthropic and Responses clients, loaded with their wire modules on their first request: most
// sessions speak one wire, and every module loaded costs start-up time (a plain run loads neither;
// test/cli/lazy-wires.test.ts). Their folders' index.ts are the real clients, imported only from here.
import type { StreamFn } from "../protocol/index.ts";
import type { AnthropicClientOptions } from "./anthropic/index.ts";
import type { ResponsesClientOptions } from "./responses/index.ts";

/** A client that calls `load` on its first request and streams through what it gives from then on. */
function lazyClient(load: () => Promise<StreamFn>): StreamFn {
  let client: Promise<StreamFn> | undefined;
  return async function* (request, signal) {
    client ??= load();
    yield* (await client)(request, signal);
  };
}

/** A client that loads the Anthropic wire on its first request. */
export function createAnthropicClient(options: AnthropicClientOptions): StreamFn {
  return lazyClient(() =>
    import("./anthropic/index.ts").then((wire) => wire.createAnthropicClient(options)),
  );
}

/** A client that loads the Responses API wire on its first request. */
export function createResponsesClient(options: ResponsesClientOptions): StreamFn {
  return lazyClient(() =>
    import("./responses/index.ts").then((wire) => wire.createResponsesClient(options)),
  );
}

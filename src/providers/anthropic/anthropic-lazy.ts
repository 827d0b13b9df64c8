// Anthropic's client, loaded with its wire modules only when a session talks to an Anthropic
// endpoint: most sessions use one wire, and every module loaded costs start-up time.
import type { StreamFn } from "../../protocol/index.ts";
import type { AnthropicClientOptions } from "./anthropic.ts";

export type { AnthropicClientOptions } from "./anthropic.ts";

/** A client that loads the Anthropic wire on its first request. */
export function createAnthropicClient(options: AnthropicClientOptions): StreamFn {
  let client: Promise<StreamFn> | undefined;
  return async function* (request, signal) {
    client ??= import("./anthropic.ts").then((wire) => wire.createAnthropicClient(options));
    yield* (await client)(request, signal);
  };
}

// Anthropic's client, loaded with its wire modules only when a session talks to an Anthropic
// endpoint.
import type { StreamFn } from "../../protocol/index.ts";
import { lazyClient } from "../lazy-client.ts";
import type { AnthropicClientOptions } from "./anthropic.ts";

export type { AnthropicClientOptions } from "./anthropic.ts";

/** A client that loads the Anthropic wire on its first request. */
export function createAnthropicClient(options: AnthropicClientOptions): StreamFn {
  return lazyClient(() =>
    import("./anthropic.ts").then((wire) => wire.createAnthropicClient(options)),
  );
}

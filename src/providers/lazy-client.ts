// A wire client loaded on its first request: most sessions speak one wire, and every module loaded
// costs start-up time (a plain run loads neither the Anthropic nor the Responses wire;
// test/cli/lazy-wires.test.ts).
import type { StreamFn } from "../protocol/index.ts";

/** A client that calls `load` on its first request and streams through what it gives from then on. */
export function lazyClient(load: () => Promise<StreamFn>): StreamFn {
  let client: Promise<StreamFn> | undefined;
  return async function* (request, signal) {
    client ??= load();
    yield* (await client)(request, signal);
  };
}

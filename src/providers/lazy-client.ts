import type { StreamFn } from "../protocol/index.ts";

/**
 * A client whose wire modules load on its first request: most sessions use one wire, and every
 * module loaded costs start-up time.
 */
export function lazyClient(load: () => Promise<StreamFn>): StreamFn {
  let client: Promise<StreamFn> | undefined;
  return async function* (request, signal) {
    client ??= load();
    yield* (await client)(request, signal);
  };
}

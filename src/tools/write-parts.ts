import { lstat, open, readFile, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { formatBytes } from "./file-content.ts";
import { ToolFailure } from "./tool.ts";

/** Large content arriving in parts, staged in a hidden file beside the target until the last part. */
export interface Staging {
  target: string;
  display: string;
  parts: number;
  received: number;
  bytes: number;
  path: string;
}

/** The staged writes of one host, keyed by target path. */
export interface PartsStore {
  get(target: string): Staging | undefined;
  /** Starts (or restarts) staging with part 1; returns how many earlier staged parts were discarded. */
  start(
    target: string,
    display: string,
    parts: number,
    bytes: Uint8Array,
  ): Promise<{ discarded: number }>;
  /** Appends the next part after checking its number and count; returns the staging state. */
  append(target: string, part: number, parts: number, bytes: Uint8Array): Promise<Staging>;
  /** The staged bytes, complete once the last part is in. */
  read(target: string): Promise<Buffer>;
  discard(target: string): Promise<void>;
}

async function deepestExisting(dir: string): Promise<string> {
  let current = dir;
  while (current !== dirname(current)) {
    const info = await lstat(current).catch(() => null);
    if (info?.isDirectory()) return current;
    current = dirname(current);
  }
  return current;
}

async function writeSynced(path: string, flags: "w" | "a", bytes: Uint8Array): Promise<void> {
  const handle = await open(path, flags, 0o666);
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Creates the store for one host. */
export function createPartsStore(): PartsStore {
  const staged = new Map<string, Staging>();
  const store: PartsStore = {
    get: (target) => staged.get(target),
    async start(target, display, parts, bytes) {
      const previous = staged.get(target);
      if (previous) await store.discard(target);
      // Staged in the nearest existing directory, so committing creates no directory early and the rename stays on one filesystem.
      const dir = await deepestExisting(dirname(target));
      const path = join(dir, `.${basename(target)}.nex-parts`);
      await writeSynced(path, "w", bytes);
      staged.set(target, { target, display, parts, received: 1, bytes: bytes.length, path });
      return { discarded: previous?.received ?? 0 };
    },
    async append(target, part, parts, bytes) {
      const state = staged.get(target);
      const nothing = `nothing was written to ${state?.display ?? target}`;
      if (!state) {
        throw new ToolFailure(
          "invalid_arguments",
          `No parts are staged for ${target}; start with part 1 (${nothing}).`,
        );
      }
      if (parts !== state.parts) {
        throw new ToolFailure(
          "invalid_arguments",
          `parts changed from ${state.parts} to ${parts} in the middle of writing ${state.display}; ${nothing}. ` +
            `Parts 1-${state.received} of ${state.parts} are still staged: send part ${state.received + 1} with parts ${state.parts}, or restart from part 1 with the new count.`,
        );
      }
      if (part <= state.received) {
        throw new ToolFailure(
          "invalid_arguments",
          `Part ${part} of ${state.parts} for ${state.display} was already staged; this duplicate was ignored and ${nothing}. Send part ${state.received + 1} next.`,
        );
      }
      if (part > state.received + 1) {
        throw new ToolFailure(
          "invalid_arguments",
          `Expected part ${state.received + 1} of ${state.parts} for ${state.display}, got part ${part}; it was not staged and ${nothing}. Send part ${state.received + 1} next.`,
        );
      }
      await writeSynced(state.path, "a", bytes);
      state.received = part;
      state.bytes += bytes.length;
      return state;
    },
    read: async (target) => {
      const state = staged.get(target);
      if (!state) throw new ToolFailure("invalid_arguments", `No parts are staged for ${target}.`);
      const bytes = await readFile(state.path);
      if (bytes.length !== state.bytes) {
        throw new ToolFailure(
          "failed",
          `The staged parts of ${state.display} hold ${formatBytes(bytes.length)} instead of ${formatBytes(state.bytes)}; something changed the staging file. Nothing was written; restart from part 1.`,
        );
      }
      return bytes;
    },
    async discard(target) {
      const state = staged.get(target);
      staged.delete(target);
      if (state) await unlink(state.path).catch(() => {});
    },
  };
  return store;
}

import { constants } from "node:fs";
import { type FileHandle, lstat, open, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { formatBytes } from "../../protocol/index.ts";
import { ToolFailure } from "../tool-failure.ts";
import { tempPathFor } from "./atomic-write.ts";

/** Large content arriving in parts, staged in a hidden file beside the target until the last part. */
export interface Staging {
  target: string;
  display: string;
  parts: number;
  received: number;
  bytes: number;
  path: string;
  /** Identity of the staging file nex created, so a file put in its place is never used. */
  dev: number;
  ino: number;
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
  /** Throws unless the staging file is still the regular file nex created (checked before the commit). */
  check(target: string): Promise<void>;
  discard(target: string): Promise<void>;
  /** Every staging still missing parts. */
  pending(): Staging[];
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

async function writeSynced(handle: FileHandle, bytes: Uint8Array): Promise<void> {
  try {
    await handle.write(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

function replaced(state: Staging): ToolFailure {
  return new ToolFailure(
    "failed",
    `The staging file of ${state.display} (${state.path}) was replaced or removed by something else; nothing was written to ${state.display}. Restart from part 1.`,
  );
}

// The path must still name the very file nex created: a symlink or another file planted there is refused.
async function checkIdentity(state: Staging): Promise<void> {
  const info = await lstat(state.path).catch(() => null);
  if (!info?.isFile() || info.dev !== state.dev || info.ino !== state.ino) throw replaced(state);
}

// Opens without following a symlink, then checks the opened file is the staged one.
async function openStaged(state: Staging, flags: number): Promise<FileHandle> {
  await checkIdentity(state);
  const handle = await open(state.path, flags | constants.O_NOFOLLOW).catch(() => {
    throw replaced(state);
  });
  const info = await handle.stat();
  if (!info.isFile() || info.dev !== state.dev || info.ino !== state.ino) {
    await handle.close();
    throw replaced(state);
  }
  return handle;
}

/** How an unfinished staging is named in messages: "big.txt (1 of 2 parts staged)". */
export function describeStaging(state: Staging): string {
  return `${state.display} (${state.received} of ${state.parts} parts staged)`;
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
      // A fresh random name created exclusively: nothing planted beforehand can be written through.
      const path = tempPathFor(join(dir, basename(target)), "parts");
      const handle = await open(path, "wx", 0o666);
      const { dev, ino } = await handle.stat().catch(async (error) => {
        await handle.close();
        throw error;
      });
      await writeSynced(handle, bytes);
      staged.set(target, {
        target,
        display,
        parts,
        received: 1,
        bytes: bytes.length,
        path,
        dev,
        ino,
      });
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
      const handle = await openStaged(state, constants.O_WRONLY | constants.O_APPEND).catch(
        (error: unknown) => {
          staged.delete(target);
          throw error;
        },
      );
      await writeSynced(handle, bytes);
      state.received = part;
      state.bytes += bytes.length;
      return state;
    },
    read: async (target) => {
      const state = staged.get(target);
      if (!state) throw new ToolFailure("invalid_arguments", `No parts are staged for ${target}.`);
      const handle = await openStaged(state, constants.O_RDONLY);
      const bytes = await handle.readFile().finally(() => handle.close());
      if (bytes.length !== state.bytes) {
        throw new ToolFailure(
          "failed",
          `The staged parts of ${state.display} hold ${formatBytes(bytes.length)} instead of ${formatBytes(state.bytes)}; something changed the staging file. Nothing was written; restart from part 1.`,
        );
      }
      return bytes;
    },
    async check(target) {
      const state = staged.get(target);
      if (!state) throw new ToolFailure("failed", `No parts are staged for ${target}.`);
      await checkIdentity(state);
    },
    pending: () => [...staged.values()],
    async discard(target) {
      const state = staged.get(target);
      staged.delete(target);
      // Only the file nex created is removed, never one put in its place.
      if (state)
        await checkIdentity(state)
          .then(() => unlink(state.path))
          .catch(() => {});
    },
  };
  return store;
}

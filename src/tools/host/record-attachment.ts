import { MAX_READ_FILE_BYTES } from "../builtin/index.ts";
import { readState, statRegular } from "../files/index.ts";
import { type HostState, sharedContext } from "./host-state.ts";

/**
 * Records that the model was shown the first bytes of a file (`@path`): its complete lines count as
 * read. False when the file is not what was shown, or not a file the tools may read.
 */
export async function recordAttachment(
  state: HostState,
  name: string,
  shown: Buffer,
): Promise<boolean> {
  try {
    return await recordShown(state, name, shown);
  } catch {
    // Not a file the tools may read (a device, gone meanwhile): not recorded, so read before a change.
    return false;
  }
}

async function recordShown(state: HostState, name: string, shown: Buffer): Promise<boolean> {
  const ctx = await sharedContext(state);
  const target = await ctx.workspace.resolve(name).catch(() => null);
  if (!target?.exists) return false;
  const info = statRegular(target.abs, target.display);
  if (!info || info.size > MAX_READ_FILE_BYTES) return false;
  const onDisk = await readState(target.abs, target.display);
  if (!onDisk?.bytes.subarray(0, shown.length).equals(shown)) return false;
  const lines = onDisk.bytes.toString("utf8").replace(/\n$/, "").split("\n");
  const total = onDisk.size === 0 ? 0 : lines.length;
  // A cut attachment shows its complete lines only: the last, partial one is not known.
  const covered =
    shown.length >= onDisk.size ? total : shown.toString("utf8").split("\n").length - 1;
  ctx.ledger.recordRead(
    { path: target.abs, hash: onDisk.hash, mtimeMs: onDisk.mtimeMs, size: onDisk.size },
    covered >= 1 ? { from: 1, to: covered, total } : { from: 1, to: 0, total },
  );
  return true;
}

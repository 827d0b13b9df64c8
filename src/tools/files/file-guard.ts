import { ToolFailure } from "../tool-failure.ts";
import type { FileState } from "./file-content.ts";

const octal = (mode: number): string => `0${(mode & 0o7777).toString(8).padStart(3, "0")}`;

// Only root may give a file to another user. A group is checked by the chown itself (a new file in a
// setgid directory already has the right group; otherwise it must be one of ours): see ownerNotKept.
function cannotKeepOwner(existing: FileState): string | null {
  const euid = process.geteuid?.();
  if (euid === undefined || euid === 0) return null;
  if (existing.uid !== euid) return `it belongs to uid ${existing.uid} and nex runs as uid ${euid}`;
  return null;
}

/** The refusal when the replacement cannot get the file's owner or group (`why` says which). */
export function ownerNotKept(display: string, why: string, nothing: string): ToolFailure {
  return new ToolFailure(
    "denied",
    `${display} cannot be replaced without changing its owner: ${why}, so the new file would belong to nex's user ` +
      `and other users could lose access to it. ${nothing} Ask the user to make this change themselves, or to run nex as the file's owner.`,
  );
}

/**
 * Refuses to replace a file whose replacement would not keep what its owner set: a read-only file
 * (no write bit for its owner, e.g. 0444: someone marked it not to be changed), or a file whose
 * owner or group this process cannot give to the new copy (the rename would hand it to whoever runs
 * nex). Writing in place instead would lose the atomicity, so nex asks the user to decide.
 */
export function checkReplaceable(existing: FileState, display: string, nothing: string): void {
  if ((existing.mode & 0o200) === 0) {
    throw new ToolFailure(
      "denied",
      `${display} is read-only (mode ${octal(existing.mode)}: its owner may not write it); nex does not replace read-only files. ${nothing} ` +
        `Ask the user whether it should change; if so, they can make it writable (\`chmod u+w ${display}\`), then retry.`,
    );
  }
  const owner = cannotKeepOwner(existing);
  if (owner) throw ownerNotKept(display, owner, nothing);
}

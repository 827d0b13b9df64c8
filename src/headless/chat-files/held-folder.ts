// A chat folder inside the workspace, served through a handle on the folder itself. The sandbox
// mounts the folder read-only, but a command can still rename a folder above it (`mv .wg/chat x`)
// and make a new one where it was, with an inbox of its own: read by its path, that inbox would
// speak as the user. Read through the handle (`/proc/self/fd/N` on Linux), nex keeps serving the
// folder it checked; and a folder whose path now leads elsewhere is reported and the chat stopped.
import { closeSync, constants, existsSync, openSync, statSync } from "node:fs";

export interface HeldFolder {
  /** The path nex reads and writes the chat's files through. */
  path: string;
  /** Why the folder's path no longer leads to the folder served, or null. */
  moved(): string | null;
  close(): void;
}

export function holdFolder(dir: string): HeldFolder {
  const first = statSync(dir);
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  const handle = `/proc/self/fd/${fd}`;
  return {
    path: existsSync(handle) ? handle : dir,
    moved() {
      let now: ReturnType<typeof statSync> | null = null;
      try {
        now = statSync(dir);
      } catch {
        // Gone: reported below.
      }
      if (now && now.ino === first.ino && now.dev === first.dev) return null;
      return `the chat folder ${dir} was moved or replaced while nex served it (a command may have renamed a folder above it); what is there now is not read as the user's word. Check the folder, then start nex again.`;
    },
    close: () => closeSync(fd),
  };
}

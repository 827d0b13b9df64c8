// `@path` completion in the chat: the workspace entries that start with what was typed. Names only,
// never contents; only inside the workspace (links followed and checked); a folder of thousands is
// read in part, so a huge repository stays responsive.
import { opendirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, sep } from "node:path";

// Entries read from one folder: enough for any prefix worth completing.
const MAX_READ = 2000;
const MAX_SHOWN = 50;

/** Workspace paths completing `partial` (`src/ap` → `src/app.ts`, `src/api/`), folders ending in `/`. */
export function completePath(workspace: string, partial: string): string[] {
  const slash = partial.lastIndexOf("/");
  const dirPart = slash >= 0 ? partial.slice(0, slash + 1) : "";
  const prefix = slash >= 0 ? partial.slice(slash + 1) : partial;
  let root: string;
  let dir: string;
  try {
    root = realpathSync(workspace);
    dir = realpathSync(join(root, dirPart));
  } catch {
    return [];
  }
  const rel = relative(root, dir);
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return [];
  const found: string[] = [];
  let handle: ReturnType<typeof opendirSync> | null = null;
  try {
    handle = opendirSync(dir);
    for (let read = 0; read < MAX_READ; read++) {
      const entry = handle.readSync();
      if (!entry) break;
      if (!entry.name.startsWith(prefix)) continue;
      // Hidden entries only when asked for, and never the repository's own database.
      if (entry.name.startsWith(".") && !prefix.startsWith(".")) continue;
      if (entry.name === ".git") continue;
      let folder = entry.isDirectory();
      if (entry.isSymbolicLink()) {
        try {
          folder = statSync(join(dir, entry.name)).isDirectory();
        } catch {}
      }
      found.push(`${dirPart}${entry.name}${folder ? "/" : ""}`);
    }
  } catch {
    return [];
  } finally {
    handle?.closeSync();
  }
  return found.sort().slice(0, MAX_SHOWN);
}

// The user approves a project's hooks by what they run, not only by their command text: a hook such
// as `./scripts/check.sh` or `sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/p.sh` runs whatever the script
// holds, and a pull that changes the script (the settings file untouched) must need a new approval.
import { createHash } from "node:crypto";
import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, resolve, sep } from "node:path";

/** Largest script whose content is part of the approval; a larger file is approved by its size and time. */
const SCRIPT_LIMIT = 4 * 2 ** 20;

/**
 * The files inside the workspace that a hook command names (each word of it, `$CLAUDE_PROJECT_DIR`
 * expanded), each with a digest of its content: what approving the hook approves besides its text.
 */
export function hookScripts(command: string, workspace: string): [string, string][] {
  const expanded = command.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, workspace);
  // Quotes join a word (`"$CLAUDE_PROJECT_DIR"/x.sh`); operators and spaces part words.
  const words = expanded
    .replace(/["']/g, "")
    .split(/[\s;&|()<>`=]+/)
    .filter((word) => word !== "");
  let root: string;
  try {
    root = realpathSync(workspace);
  } catch {
    return [];
  }
  const out = new Map<string, string>();
  for (const word of words) {
    const path = isAbsolute(word) ? word : resolve(workspace, word);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      continue;
    }
    if (real !== root && !real.startsWith(root + sep)) continue;
    const digest = fileDigest(real);
    if (digest !== null) out.set(real.slice(root.length + 1), digest);
  }
  return [...out.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function fileDigest(path: string): string | null {
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return null;
    if (stat.size > SCRIPT_LIMIT) return `size ${stat.size}, changed ${stat.mtimeMs}`;
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch {
    return null;
  }
}

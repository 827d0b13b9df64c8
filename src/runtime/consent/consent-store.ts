// The one store of the user's consent: which project MCP servers, hooks and project commands may run
// in which workspace. It lives in the user's own config folder (`$XDG_CONFIG_HOME/nex/consent.json`),
// never in the data directory (which `dataDir: "workspace"` puts inside the repository), keyed by the
// workspace's real path and by a hash of everything the approved thing runs. A store that a repository
// or a sandboxed command could write (a link into the workspace, a config folder inside it) is not
// read: nothing there grants anything.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { readOwnFile } from "../../tools/index.ts";
import { commandWritable, realPathOf } from "./writable-by-commands.ts";

type Env = Record<string, string | undefined>;

/** Where this workspace's consent is kept, or why it cannot be kept there. */
export interface ConsentPlace {
  /** The workspace's real path: the key. */
  workspace: string;
  file: string;
  /** Why the store is not used (completes "nex keeps no consent at FILE: ..."), or null. */
  refused: string | null;
}

interface Grant {
  sha256: string;
  approvedAt: string;
}

const LIMIT = 4 * 1024 * 1024;

/** The consent file for `env` (the user's config folder), checked against what commands can write. */
export function consentPlace(options: {
  env: Env;
  workspace: string;
  /** The sandbox settings' extra writable folders. */
  writable?: readonly string[];
}): ConsentPlace {
  const home = options.env.HOME || homedir();
  const base = options.env.XDG_CONFIG_HOME || join(home, ".config");
  const file = join(base, "nex", "consent.json");
  const reason = commandWritable(file, {
    workspace: options.workspace,
    writable: options.writable ?? [],
    home,
  });
  return {
    workspace: realPathOf(options.workspace),
    file,
    refused: reason
      ? `it lies ${reason}, where the repository or a command could write it. Set XDG_CONFIG_HOME to a folder outside the workspace.`
      : null,
  };
}

/** The folder that holds the store (kept from commands and the file tools). */
export function consentDir(place: ConsentPlace): string {
  return dirname(place.file);
}

type Stored = Record<string, Record<string, Grant>>;

/** The store's grants, or why it cannot be read (then nothing is granted, and nothing is written over it). */
function readStore(place: ConsentPlace): { grants: Stored } | { problem: string } {
  const read = readOwnFile(place.file, LIMIT);
  if (read.type === "missing") return { grants: {} };
  if (read.type === "refused") return { problem: `it was not read: ${read.reason}` };
  if (read.truncated) return { problem: `it is larger than ${LIMIT / 2 ** 20} MiB` };
  try {
    const all = (JSON.parse(read.text) as { workspaces?: unknown } | null)?.workspaces;
    return { grants: all && typeof all === "object" ? (all as Stored) : {} };
  } catch (error) {
    return { problem: `it is not valid JSON (${(error as Error).message})` };
  }
}

function readAll(place: ConsentPlace): Stored {
  if (place.refused) return {};
  const read = readStore(place);
  return "grants" in read ? read.grants : {};
}

/** The hash the user approved for `subject` here (e.g. `hooks`, `mcp`, `command:.claude/commands/x.md`), or null. */
export function approvedHash(place: ConsentPlace, subject: string): string | null {
  const grant = readAll(place)[place.workspace]?.[subject];
  return typeof grant?.sha256 === "string" ? grant.sha256 : null;
}

/** Whether the user approved exactly `hash` for `subject` in this workspace. */
export function hasConsent(place: ConsentPlace, subject: string, hash: string): boolean {
  return approvedHash(place, subject) === hash;
}

/** Records the user's approval (0600, replaced atomically); throws with the reason when it cannot be kept. */
export function recordConsent(place: ConsentPlace, subject: string, hash: string): void {
  if (place.refused) throw new Error(`nex keeps no consent at ${place.file}: ${place.refused}`);
  const read = readStore(place);
  if ("problem" in read)
    throw new Error(
      `${place.file} holds the approvals of every project, and ${read.problem}: fix or remove it, then approve again.`,
    );
  const all = read.grants;
  const here = { ...(all[place.workspace] ?? {}) };
  here[subject] = { sha256: hash, approvedAt: new Date().toISOString() };
  all[place.workspace] = here;
  mkdirSync(dirname(place.file), { recursive: true, mode: 0o700 });
  const temp = `${place.file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ version: 1, workspaces: all }, null, 2)}\n`, {
    mode: 0o600,
  });
  renameSync(temp, place.file);
}

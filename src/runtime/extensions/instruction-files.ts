// The instructions coding agents read before they work (the AGENTS.md convention): the user's own
// for every project, the project's at its root (CLAUDE.md when it has no AGENTS.md), and nested ones
// in its folders, where the file closest to the file being worked on wins.
import { type Dirent, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { AgentEvent } from "../../protocol/index.ts";
import { readOwnFile, readWorkspaceOwnFile } from "../../tools/index.ts";
import { defaultConfigPath, type NexConfig } from "../config/index.ts";

// All instructions together are sent up to this size; beyond it they are cut, and the user is told.
export const INSTRUCTIONS_LIMIT = 64 * 1024;
// Nested files are looked for this deep below the workspace, in at most this many folders: a start
// in a huge tree stays quick (the common places, `packages/x/`, `services/y/api/`, are within).
const NESTED_DEPTH = 3;
const NESTED_FOLDERS = 400;
const SKIPPED = new Set(["node_modules", "vendor", "dist", "build", "target", "__pycache__"]);
const NAMES = ["AGENTS.md", "CLAUDE.md"];

interface Source {
  /** How the prompt names it. */
  label: string;
  read: (limit: number) => Promise<ReturnType<typeof readOwnFile>>;
  /** The path the user sees in a notice. */
  shown: string;
}

/** The instruction file a folder's entries hold: AGENTS.md, else CLAUDE.md. */
function pick(entries: readonly Dirent[]): string | undefined {
  return NAMES.find((name) => entries.some((entry) => entry.name === name && !entry.isDirectory()));
}

function list(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Nested instruction files below the workspace's root, shallowest first (relative paths). */
function nestedFiles(workspace: string): string[] {
  const found: string[] = [];
  let level = [""];
  let visited = 0;
  for (let depth = 1; depth <= NESTED_DEPTH && level.length > 0; depth++) {
    const next: string[] = [];
    for (const parent of level) {
      for (const entry of list(join(workspace, parent))) {
        if (!entry.isDirectory() || entry.name.startsWith(".") || SKIPPED.has(entry.name)) continue;
        if (++visited > NESTED_FOLDERS) return found;
        const rel = parent ? `${parent}/${entry.name}` : entry.name;
        const name = pick(list(join(workspace, rel)));
        if (name) found.push(`${rel}/${name}`);
        next.push(rel);
      }
    }
    level = next.sort();
  }
  return found;
}

function sources(config: NexConfig, env: Record<string, string | undefined>): Source[] {
  const guarded = (name: string) => (limit: number) =>
    readWorkspaceOwnFile({
      workspace: config.workspace,
      name,
      limit,
      allowedPaths: config.allowedPaths,
      privatePaths: [config.dataDir],
    });
  const all: Source[] = [];
  const globalDir = dirname(defaultConfigPath(env));
  const globalName = pick(list(globalDir).filter((entry) => entry.name === "AGENTS.md"));
  if (globalName) {
    const path = join(globalDir, globalName);
    all.push({
      label: `From ${path} (the user's own, for every project)`,
      read: async (limit) => readOwnFile(path, limit),
      shown: path,
    });
  }
  const root = pick(list(config.workspace));
  if (root) all.push({ label: `From ${root} (this project)`, read: guarded(root), shown: root });
  for (const rel of nestedFiles(config.workspace)) {
    const folder = rel.slice(0, rel.lastIndexOf("/") + 1);
    all.push({
      label: `From ${rel} (for files under ${folder}; there it wins over the instructions above)`,
      read: guarded(rel),
      shown: rel,
    });
  }
  return all;
}

/**
 * Every instruction file that applies, read like a tool would read them (the workspace's through the
 * workspace guard: a link out of it is not followed; only regular files), within 64 KiB together.
 * A project with only a root AGENTS.md gets it as it is; several files each come under a heading
 * naming where they apply. Why one was not sent, or was cut, is a notice before the first request.
 */
export async function readInstructions(
  config: NexConfig,
  env: Record<string, string | undefined>,
  events: AgentEvent[],
): Promise<string | null> {
  const blocks: { label: string; text: string }[] = [];
  let left = INSTRUCTIONS_LIMIT;
  for (const source of sources(config, env)) {
    if (left <= 0) {
      events.push({
        type: "notice",
        message: `${source.shown} was not sent to the model: the instructions already fill ${INSTRUCTIONS_LIMIT / 1024} KiB. Shorten them to send it.`,
      });
      continue;
    }
    const read = await source.read(left);
    if (read.type === "missing") continue;
    if (read.type === "refused") {
      events.push({
        type: "notice",
        message: `${source.shown} was not read, so the model does not see it: ${read.reason}. Make it a regular file inside the workspace (a link may point into a folder listed in \`allowedPaths\`).`,
      });
      continue;
    }
    if (read.truncated)
      events.push({
        type: "notice",
        message: `${source.shown} is ${read.size} bytes; only its first ${(left / 1024).toFixed(0)} KiB are sent to the model (instructions are sent up to ${INSTRUCTIONS_LIMIT / 1024} KiB together). Shorten it to send it whole.`,
      });
    left -= Buffer.byteLength(read.text);
    if (read.text.trim()) blocks.push({ label: source.label, text: read.text.trim() });
  }
  if (blocks.length === 0) return null;
  const only = blocks[0];
  if (blocks.length === 1 && only?.label.startsWith("From AGENTS.md ")) return only.text;
  return blocks.map((block) => `${block.label}:\n${block.text}`).join("\n\n");
}

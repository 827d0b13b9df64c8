// A journal carries the user's authority: its user messages are read back as the user's words when a
// session resumes. With the data directory inside the workspace (`"dataDir": "workspace"`), a
// repository can ship journals (and `--session-id` names leading to them) of its own making, full
// of "the user said". nex therefore records, in the user's config folder, the sessions it started in
// such a data directory, and resumes, undoes or continues only those there.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { readOwnFile } from "../../tools/index.ts";
import { ConfigError } from "../config/index.ts";
import { commandWritable, realPathOf } from "../consent/index.ts";

type Env = Record<string, string | undefined>;

/** Sessions kept per data directory; the oldest are forgotten past it. */
const KEEP = 2000;

function fileOf(env: Env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "nex", "own-sessions.json");
}

/** Whether the data directory is one a repository could ship journals in. */
function shippable(dataDir: string, workspace: string, writable: readonly string[]): boolean {
  return commandWritable(dataDir, { workspace, writable }) !== null;
}

function readAll(env: Env): Record<string, string[]> {
  const read = readOwnFile(fileOf(env), 8 * 1024 * 1024);
  if (read.type !== "read" || read.truncated) return {};
  try {
    const parsed = JSON.parse(read.text) as { dataDirs?: unknown };
    const all = parsed?.dataDirs;
    return all && typeof all === "object" ? (all as Record<string, string[]>) : {};
  } catch {
    return {};
  }
}

interface Where {
  dataDir: string;
  workspace: string;
  sandbox: { writable?: string[] };
}

/** Records that nex started `sessionId` in this data directory (only where a repository could ship one). */
export function recordOwnSession(env: Env, config: Where, sessionId: string): void {
  if (!shippable(config.dataDir, config.workspace, config.sandbox.writable ?? [])) return;
  const file = fileOf(env);
  if (
    commandWritable(file, { workspace: config.workspace, writable: config.sandbox.writable ?? [] })
  )
    return;
  const all = readAll(env);
  const key = realPathOf(config.dataDir);
  all[key] = [...(all[key] ?? []).filter((id) => id !== sessionId), sessionId].slice(-KEEP);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ version: 1, dataDirs: all }, null, 2)}\n`, {
    mode: 0o600,
  });
  renameSync(temp, file);
}

/** Throws a ConfigError when `sessionId` lies in a data directory a repository could ship and nex did not start it for this user. */
export function refuseForeignSession(
  env: Env,
  config: Where,
  session: { sessionId: string; journalPath: string },
): void {
  if (!shippable(config.dataDir, config.workspace, config.sandbox.writable ?? [])) return;
  const mine = readAll(env)[realPathOf(config.dataDir)] ?? [];
  if (mine.includes(session.sessionId)) return;
  throw new ConfigError(
    `Session ${session.sessionId} (${session.journalPath}) was not started by nex for you: its journal lies in the workspace, where a repository could have put it, so its messages are not taken as yours. Delete it, or start a new session.`,
  );
}

/** The sessions of `list` nex started for this user (all of them where no repository could ship one). */
export function ownSessionsOnly<T extends { sessionId: string }>(
  env: Env,
  config: Where,
  list: T[],
): T[] {
  if (!shippable(config.dataDir, config.workspace, config.sandbox.writable ?? [])) return list;
  const mine = new Set(readAll(env)[realPathOf(config.dataDir)] ?? []);
  return list.filter((session) => mine.has(session.sessionId));
}

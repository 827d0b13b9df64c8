import { open, readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { parseHeader } from "./journal.ts";
import { readFirstLine, readLinesBackward } from "./line-reader.ts";
import { parseRecord, sniffType } from "./records.ts";

/** One row of `nex sessions`. */
export interface SessionListing {
  sessionId: string;
  workspace: string;
  startedAt: string;
  /** Last modification of the journal: the order of the listing. */
  updatedAt: string;
  /** The first ~80 characters of the newest user or assistant text. */
  lastMessage: string;
  /** The first ~80 characters of the session's first prompt: what the session is about. */
  firstPrompt: string;
  messages: number;
  bytes: number;
  journalPath: string;
  provider: string;
  model: string;
}

/** The answer to `findSession`: found, or a message saying why not and what to do. */
export type SessionLookup =
  | { type: "found"; session: SessionListing }
  | { type: "not_found"; message: string }
  | { type: "ambiguous"; message: string; candidates: SessionListing[] };

// How much of a journal's tail the listing reads at most to find its newest text.
const TAIL_LIMIT = 512 * 1024;
const PARALLEL = 16;

function oneLine(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

// How much of a journal's head the listing reads at most to find its first prompt.
const HEAD_LIMIT = 256 * 1024;

/** The first user message's text, from the records after the header (empty when none is near the start). */
async function readFirstPrompt(
  handle: Awaited<ReturnType<typeof open>>,
  start: number,
  size: number,
): Promise<string> {
  const length = Math.max(0, Math.min(HEAD_LIMIT, size - start));
  if (length === 0) return "";
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, start);
  const lines = buffer.subarray(0, bytesRead).toString("utf8").split("\n");
  // The last piece may be cut by the limit: only whole lines are parsed.
  if (start + bytesRead < size) lines.pop();
  for (const line of lines) {
    if (sniffType(Buffer.from(line)) !== "message") continue;
    const parsed = parseRecord(line);
    if (parsed.ok && parsed.record.type === "message" && parsed.record.message.type === "user") {
      return oneLine(parsed.record.message.text);
    }
  }
  return "";
}

/** Summarises one journal from its first line and its tail; null when it is not a readable journal. */
export async function describeSession(journalPath: string): Promise<SessionListing | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(journalPath, "r");
  } catch {
    return null;
  }
  try {
    const stat = await handle.stat();
    const header = await readFirstLine(handle, { size: stat.size });
    const meta = parseHeader(header.bytes, journalPath);
    let messages: number | null = null;
    let lastMessage: string | null = null;
    const counter = { bytesRead: 0 };
    for await (const line of readLinesBackward(handle, {
      size: stat.size,
      stopAt: header.end,
      counter,
      blockSize: 16 * 1024,
    })) {
      const type = sniffType(line.bytes);
      if (type !== null && type !== "message") continue;
      const parsed = parseRecord(line.bytes.toString("utf8"));
      if (parsed.ok && parsed.record.type === "message") {
        messages ??= parsed.record.seq;
        const m = parsed.record.message;
        const text = m.type === "tool_result" ? "" : m.text.trim();
        if (text.length > 0) lastMessage = oneLine(text);
      }
      if ((messages !== null && lastMessage !== null) || counter.bytesRead > TAIL_LIMIT) break;
    }
    const firstPrompt = await readFirstPrompt(handle, header.end, stat.size);
    return {
      sessionId: meta.id,
      firstPrompt,
      workspace: meta.workspace,
      startedAt: meta.createdAt,
      updatedAt: stat.mtime.toISOString(),
      lastMessage: lastMessage ?? "",
      messages: messages ?? 0,
      bytes: stat.size,
      journalPath,
      provider: meta.provider,
      model: meta.model,
    };
  } catch {
    return null;
  } finally {
    await handle.close();
  }
}

/** Every readable session under `dataDir`, most recently used first; optionally only one workspace's. */
export async function listSessions(
  dataDir: string,
  options: { workspace?: string } = {},
): Promise<SessionListing[]> {
  const dir = join(dataDir, "sessions");
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".jsonl"));
  } catch {
    return [];
  }
  const rows: SessionListing[] = [];
  for (let i = 0; i < names.length; i += PARALLEL) {
    const batch = names.slice(i, i + PARALLEL).map((n) => describeSession(join(dir, n)));
    for (const row of await Promise.all(batch)) if (row) rows.push(row);
  }
  const workspace = options.workspace === undefined ? undefined : resolve(options.workspace);
  return rows
    .filter((r) => workspace === undefined || resolve(r.workspace) === workspace)
    .sort(
      (a, b) => b.updatedAt.localeCompare(a.updatedAt) || b.sessionId.localeCompare(a.sessionId),
    );
}

/**
 * A session by full id, unique id prefix, or `last` (the most recently used, in `workspace` if given).
 */
export async function findSession(
  dataDir: string,
  idOrPrefix: string,
  options: { workspace?: string } = {},
): Promise<SessionLookup> {
  const sessions = await listSessions(dataDir, options);
  const where = options.workspace ? ` for ${options.workspace}` : "";
  if (idOrPrefix === "last") {
    const newest = sessions[0];
    if (newest) return { type: "found", session: newest };
    return { type: "not_found", message: `No saved session${where}; start one with \`nex\`.` };
  }
  const exact = sessions.find((s) => s.sessionId === idOrPrefix);
  if (exact) return { type: "found", session: exact };
  const matches = sessions.filter((s) => s.sessionId.startsWith(idOrPrefix));
  const only = matches[0];
  if (matches.length === 1 && only) return { type: "found", session: only };
  if (matches.length === 0) {
    return {
      type: "not_found",
      message: `No session${where} matches "${idOrPrefix}"; list them with \`nex sessions\`.`,
    };
  }
  return {
    type: "ambiguous",
    message: `${matches.length} sessions match "${idOrPrefix}"; give more of the id (see \`nex sessions\`).`,
    candidates: matches,
  };
}

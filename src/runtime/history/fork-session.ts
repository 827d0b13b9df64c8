// `/fork`: a copy of the session under a new id, to try another way from here. The copy is the
// journal byte for byte after a new header (so it resumes to the same conversation, read ledger and
// all), with the session's images, stored results and readers' notes; the original stays as it
// is, resumable.
import { randomBytes } from "node:crypto";
import { cp, link, open, readFile, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { newSessionId } from "../../session/session-id.ts";

/** The fork's id and journal. */
export interface ForkedSession {
  sessionId: string;
  journalPath: string;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Copies the journal at `journalPath` (session `sessionId`, synced by the caller) to a new session.
 * The new journal appears whole or not at all: written to a temporary name, synced, then linked
 * under its name (a link never replaces an existing file).
 */
export async function forkJournal(journalPath: string, sessionId: string): Promise<ForkedSession> {
  const sessionsDir = dirname(journalPath);
  const dataDir = dirname(sessionsDir);
  const bytes = await readFile(journalPath);
  const end = bytes.indexOf(0x0a);
  if (end < 0) throw new Error(`${journalPath} has no complete header line; nothing was copied.`);
  const header = JSON.parse(bytes.subarray(0, end).toString("utf8")) as Record<string, unknown>;
  if (header.type !== "session" || header.id !== sessionId)
    throw new Error(
      `${journalPath} is not the journal of session ${sessionId}; nothing was copied.`,
    );
  for (let attempt = 0; ; attempt++) {
    const id = newSessionId();
    const target = join(sessionsDir, `${id}.jsonl`);
    if (await exists(target)) {
      if (attempt < 5) continue;
      throw new Error(`Could not pick a free session id in ${sessionsDir}; nothing was copied.`);
    }
    const now = new Date().toISOString();
    const forkHeader = { ...header, id, ts: now, createdAt: now, forkedFrom: sessionId };
    // Images, stored results and readers' notes first: a fork that can be resumed finds what its
    // journal names, and an interrupted reader goes on in the fork too.
    for (const kind of ["images", "results", "readers"]) {
      const from = join(dataDir, kind, sessionId);
      if (await exists(from))
        await cp(from, join(dataDir, kind, id), { recursive: true, errorOnExist: false });
    }
    const temp = join(sessionsDir, `.${id}.fork-${randomBytes(4).toString("hex")}`);
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.write(`${JSON.stringify(forkHeader)}\n`);
      await handle.write(bytes.subarray(end + 1));
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && attempt < 5) continue;
      throw error;
    }
    await rm(temp, { force: true });
    return { sessionId: id, journalPath: target };
  }
}

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createJournal, journalPath, openJournal } from "../../src/session/journal.ts";
import {
  acquireSessionLock,
  lockPathFor,
  SessionBusyError,
  startTimeOf,
} from "../../src/session/session-lock.ts";
import { tempDir } from "./fixtures.ts";

const session = { workspace: "/w", provider: "openai", model: "m", baseUrl: "http://h/v1" };

test("a journal open for writing holds its session: a second open is refused, naming the holder", async () => {
  const dir = tempDir();
  const first = await createJournal(dir, session, { sync: "never" });
  await assert.rejects(openJournal(first.path, { sync: "never" }), (error: unknown) => {
    assert.ok(error instanceof SessionBusyError);
    assert.match(error.message, new RegExp(`pid ${process.pid}\\b`));
    assert.match(error.message, new RegExp(`session ${first.meta.id}`));
    assert.match(error.message, /nex sessions/);
    return true;
  });
  first.close();
  assert.equal(existsSync(lockPathFor(first.path)), false, "closing the journal releases the lock");
  const again = await openJournal(first.path, { sync: "never" });
  assert.deepEqual(again.warnings, []);
  again.close();
});

/** A lock file as a process with `pid` (and `start`) would have left it. */
function leaveLock(path: string, pid: number, start: string | null): void {
  const holder = { pid, start, host: hostname(), since: "2026-01-01T00:00:00.000Z", nonce: "x" };
  writeFileSync(lockPathFor(path), `${JSON.stringify(holder)}\n`);
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid as number;
}

test("a lock left by a killed process is taken over, and the taker is told", async () => {
  const dir = tempDir();
  const journal = await createJournal(dir, session, { sync: "never" });
  journal.close();
  const pid = await deadPid();
  leaveLock(journal.path, pid, "12345");
  const reopened = await openJournal(journal.path, { sync: "never" });
  assert.equal(reopened.warnings.length, 1);
  assert.match(
    reopened.warnings[0] as string,
    new RegExp(`pid ${pid}, which is no longer running`),
  );
  assert.match(readFileSync(lockPathFor(journal.path), "utf8"), new RegExp(`"pid":${process.pid}`));
  reopened.close();
});

test("a lock whose pid now belongs to another process (pid reuse) is stale", async (t) => {
  if (startTimeOf(process.pid) === null) return t.skip("no /proc on this system");
  const dir = tempDir();
  const journal = await createJournal(dir, session, { sync: "never" });
  journal.close();
  // Our parent is alive, but it is not the process that took the lock: its start time differs.
  leaveLock(journal.path, process.ppid, "1");
  const reopened = await openJournal(journal.path, { sync: "never" });
  assert.match(reopened.warnings.join("\n"), /no longer running/);
  reopened.close();
});

test("a lock held by a live process on this host is respected", async () => {
  const dir = tempDir();
  const journal = await createJournal(dir, session, { sync: "never" });
  journal.close();
  leaveLock(journal.path, process.ppid, startTimeOf(process.ppid));
  assert.throws(() => acquireSessionLock(journal.path, journal.meta.id), SessionBusyError);
});

test("an unreadable lock file (torn by a crash) is taken over", async () => {
  const dir = tempDir();
  const journal = await createJournal(dir, session, { sync: "never" });
  journal.close();
  writeFileSync(lockPathFor(journal.path), '{"pid":');
  const lock = acquireSessionLock(journal.path, journal.meta.id);
  assert.match(lock.notice ?? "", /unreadable lock file/);
  lock.release();
  assert.equal(existsSync(lockPathFor(journal.path)), false);
});

test("a process that exits without closing its journal leaves no lock behind; one killed by a signal leaves one the next takes over", async () => {
  const dir = tempDir();
  const path = journalPath(dir, "s1");
  const code = `
    import { createJournal } from ${JSON.stringify(join(import.meta.dirname, "../../src/session/journal.ts"))};
    await createJournal(${JSON.stringify(dir)}, { ...${JSON.stringify(session)}, id: "s1" }, { sync: "never" });
    process.exitCode = 0;`;
  for (const ending of ["", "throw new Error('crash');"]) {
    const child = spawn(process.execPath, ["--input-type=module", "-e", code + ending], {
      stdio: "ignore",
    });
    await new Promise((resolve) => child.on("exit", resolve));
    assert.equal(
      existsSync(lockPathFor(path)),
      false,
      `lock left after ${ending || "a normal exit"}`,
    );
    unlinkSync(path);
  }
  const killed = spawn(
    process.execPath,
    ["--input-type=module", "-e", `${code} process.kill(process.pid, 'SIGTERM');`],
    { stdio: "ignore" },
  );
  await new Promise((resolve) => killed.on("exit", resolve));
  assert.ok(existsSync(lockPathFor(path)), "a signal ends the process without its exit handlers");
  const reopened = await openJournal(path, { sync: "never" });
  assert.match(
    reopened.warnings.join("\n"),
    new RegExp(`pid ${killed.pid}, which is no longer running`),
  );
  reopened.close();
});

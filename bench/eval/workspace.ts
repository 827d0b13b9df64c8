// A fresh copy of a task's repository in a temp folder, set up, with a fingerprint of its files so
// that "changed nothing" can be checked.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Task } from "./tasks.ts";

export interface TaskWorkspace {
  /** The repository nex works in. */
  dir: string;
  /** nex's data directory for this task (sessions, results): outside the repository. */
  dataDir: string;
  /** The expected answer of an `answerFrom` task, computed after setup. */
  expectedAnswer: string | null;
  /** path → sha256 of every file after setup (`.git` excluded). */
  fingerprint: Map<string, string>;
  remove(): void;
  /** Moves the workspace aside for inspection (the next task reuses its path); returns where. */
  keep(): string;
}

/**
 * Every task of a run works at the same path, so that nex's system prompt (which names the
 * workspace) is the same prefix in each task's first request, and a server's prompt cache reuses it
 * instead of reading some 2,400 tokens again (minutes on a slow machine).
 */
const runBase = join(tmpdir(), `nex-eval-${process.pid}`);

export function prepareWorkspace(task: Task): TaskWorkspace {
  const base = runBase;
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const dir = join(base, "repo");
  const dataDir = join(base, "data");
  cpSync(join(task.dir, "repo"), dir, { recursive: true });
  rmSync(join(dir, ".keep"), { force: true });
  if (task.setup) {
    const result = shell(task.setup, dir, task.dir);
    if (result.status !== 0)
      throw new Error(`${task.id}: setup failed (exit ${result.status}): ${result.output}`);
  }
  let expectedAnswer: string | null = null;
  if (task.answerFrom) {
    const result = shell(task.answerFrom, dir, task.dir);
    if (result.status !== 0 || result.output.trim() === "")
      throw new Error(`${task.id}: answerFrom failed (exit ${result.status}): ${result.output}`);
    expectedAnswer = result.output.trim();
  }
  return {
    dir,
    dataDir,
    expectedAnswer,
    fingerprint: fingerprint(dir),
    remove: () => rmSync(base, { recursive: true, force: true }),
    keep: () => {
      const kept = `${base}-${task.id}`;
      rmSync(kept, { recursive: true, force: true });
      renameSync(base, kept);
      return join(kept, "repo");
    },
  };
}

/** Runs `command` with sh in `cwd`, `$TASK_DIR` set; output is stdout and stderr together. */
export function shell(
  command: string,
  cwd: string,
  taskDir: string,
  timeoutMs = 120_000,
): { status: number | null; output: string } {
  const result = spawnSync("sh", ["-c", command], {
    cwd,
    env: { ...process.env, TASK_DIR: taskDir },
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 16 * 1024 * 1024,
  });
  return { status: result.status, output: `${result.stdout ?? ""}${result.stderr ?? ""}` };
}

export function fingerprint(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        // git's own bookkeeping and Python's caches are not the task's files.
        if (entry.name !== ".git" && entry.name !== "__pycache__") walk(path);
      } else if (entry.isFile()) {
        out.set(relative(dir, path), createHash("sha256").update(readFileSync(path)).digest("hex"));
      }
    }
  };
  walk(dir);
  return out;
}

/** The files added, removed or changed between two fingerprints. */
export function changedFiles(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}

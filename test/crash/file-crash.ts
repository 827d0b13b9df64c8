// One crash run for the file tools: the user's files, many workers killed mid-change, the checks
// after each kill, `nex resume --last` on a crashed session, then a clean run that must just work.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "../../src/protocol/index.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import {
  type CrashBox,
  crashBox,
  filesUnder,
  ITERATIONS,
  journalProblems,
  journalsOf,
  killAt,
  planKill,
  resumeWithNex,
  seeded,
  startWorker,
  TEMP_FILE,
} from "./crash-harness.ts";
import { editText, editToken, editVersionOf, fileText, versionOf } from "./fixtures/versions.ts";

/** Which tool the workers drive: write_file whole, edit_file, or write_file in parts. */
export type FileMode = "write" | "edit" | "parts";

/** What a crash run saw, for the test to assert on beyond the checks made after every kill. */
export interface FileCrashReport {
  kills: number;
  /** Kills that landed between a change's start and its end. */
  midChange: number;
  /** nex's temporary files in the workspace at the end. */
  leftovers: string[];
}

const INITIAL: Record<FileMode, string[]> = {
  write: ["small.txt", "big.txt"],
  edit: ["small.txt", "big.txt"],
  parts: ["small.txt", "parted.txt"],
};

function textOf(mode: FileMode, name: string, version: number): string {
  return mode === "edit" ? editText(name, version) : fileText(name, version);
}

function versionIn(mode: FileMode, name: string, path: string): number | null {
  const text = readFileSync(path, "utf8");
  return mode === "edit" ? editVersionOf(name, text) : versionOf(name, text);
}

/** Every file in the workspace is a complete version it may hold; returns the versions found. */
function checkFiles(
  box: CrashBox,
  mode: FileMode,
  known: Map<string, number>,
  pending: { name: string; from: number | null; to: number } | null,
  where: string,
): void {
  for (const name of filesUnder(box.workspace)) {
    if (TEMP_FILE.test(name)) continue;
    assert.ok(
      known.has(name) || pending?.name === name,
      `${where}: a stray file ${name} is in the workspace`,
    );
  }
  const names = new Set([...known.keys(), ...(pending ? [pending.name] : [])]);
  for (const name of names) {
    const path = join(box.workspace, name);
    const before = known.get(name) ?? null;
    const allowed = pending?.name === name ? [before, pending.to] : [before];
    const actual = existsSync(path) ? versionIn(mode, name, path) : null;
    const present = existsSync(path);
    assert.ok(
      present ? actual !== null && allowed.includes(actual) : allowed.includes(null),
      `${where}: ${name} must hold version ${allowed.map(String).join(" or ")}, ` +
        `but ${present ? (actual === null ? "holds neither (a mix, a cut or empty)" : `holds version ${actual}`) : "is missing"}`,
    );
    if (actual !== null) known.set(name, actual);
  }
}

/** Every tool call in a journal is its sent arguments, intact: whole writes carry an exact version. */
function intactCall(message: Message): string | null {
  if (message.type !== "assistant") return null;
  for (const call of message.toolCalls) {
    let args: Record<string, unknown>;
    try {
      args = JSON.parse(call.argumentsText) as Record<string, unknown>;
    } catch {
      return `the arguments of ${call.id} do not parse`;
    }
    const { path, content, part } = args;
    if (call.name !== "write_file" || part !== undefined) continue;
    if (typeof path !== "string" || typeof content !== "string" || !versionOf(path, content))
      return `the content of ${call.id} is not an exact version`;
  }
  return null;
}

function replay(lines: string[]) {
  const changes: { name: string; from: number | null; to: number; ms?: number }[] = [];
  for (const line of lines) {
    const [word, json] = [line.slice(0, line.indexOf(" ")), line.slice(line.indexOf(" ") + 1)];
    if (word === "begin") changes.push(JSON.parse(json));
    if (word === "end") {
      const last = changes.at(-1);
      if (last) last.ms = (JSON.parse(json) as { ms: number }).ms;
    }
  }
  return changes;
}

/** Kills `ITERATIONS` workers at random moments in a row on the same workspace, checking after each. */
export async function fileCrashRun(mode: FileMode, offset: number): Promise<FileCrashReport> {
  const { random, label } = seeded(offset);
  const box = crashBox();
  const report: FileCrashReport = { kills: 0, midChange: 0, leftovers: [] };
  try {
    const known = new Map<string, number>();
    for (const name of INITIAL[mode]) {
      writeFileSync(join(box.workspace, name), textOf(mode, name, 0));
      known.set(name, 0);
    }
    let typicalMs = 5;
    for (let i = 0; i < ITERATIONS; i++) {
      let plan = planKill(random, "begin", 3, typicalMs);
      // The last kill lands mid-session, so `nex resume --last` below has a crashed journal to resume.
      if (i === ITERATIONS - 1 && plan.at === "spawn")
        plan = { at: "line", trigger: "begin", count: 1, delayMs: typicalMs / 2 };
      const where = `${mode} kill ${i + 1} (${JSON.stringify(plan)}) ${label}`;
      const seed = String(Math.floor(random() * 2 ** 31));
      const worker = startWorker("file-worker.ts", [box.workspace, box.dataDir, mode, seed]);
      const outcome = await killAt(worker, plan);
      assert.ok(outcome.killed, `${where}: the worker ended by itself: ${outcome.stderr}`);
      report.kills += 1;
      const changes = replay(outcome.lines);
      const last = changes.at(-1);
      const open = last && last.ms === undefined ? last : null;
      if (open) report.midChange += 1;
      for (const change of changes) {
        if (change !== open) known.set(change.name, change.to);
        if (change.ms !== undefined) typicalMs = (typicalMs + change.ms) / 2;
      }
      checkFiles(box, mode, known, open, where);
      const journal = journalsOf(box).at(-1);
      if (journal) {
        const { problems } = await journalProblems(journal, intactCall);
        assert.deepEqual(problems, [], `${where}: journal ${journal}`);
      }
    }

    // The real nex resumes the last crashed session and changes a file the crash may have left mid-write.
    const small = known.get("small.txt") ?? 0;
    const change =
      mode === "edit"
        ? {
            name: "edit_file",
            args: {
              path: "small.txt",
              old_string: editToken(small),
              new_string: editToken(small + 1),
              replace_all: true,
            },
          }
        : {
            name: "write_file",
            args: { path: "small.txt", content: fileText("small.txt", small + 1) },
          };
    const { result } = await resumeWithNex(
      box,
      [
        openaiToolCall({ name: "read_file", args: { path: "small.txt" } }),
        openaiToolCall(change),
        openaiText("Changed small.txt."),
      ],
      "change small.txt once more",
    );
    assert.equal(result.code, 0, `nex resume --last failed ${label}: ${result.stderr}`);
    assert.equal(
      readFileSync(join(box.workspace, "small.txt"), "utf8"),
      textOf(mode, "small.txt", small + 1),
      `nex resume --last did not change small.txt ${label}: ${result.stderr}`,
    );
    known.set("small.txt", small + 1);

    // After every crash, a worker left alone finishes its changes: leftovers are never taken for targets.
    const clean = startWorker("file-worker.ts", [box.workspace, box.dataDir, mode, "7", "4"]);
    const { code } = await clean.exited;
    assert.equal(code, 0, `a clean run after the crashes failed ${label}: ${clean.stderr()}`);
    for (const change of replay(clean.lines)) known.set(change.name, change.to);
    checkFiles(box, mode, known, null, `after the clean run ${label}`);
    report.leftovers = filesUnder(box.workspace).filter((name) => TEMP_FILE.test(name));
    return report;
  } finally {
    box.dispose();
  }
}

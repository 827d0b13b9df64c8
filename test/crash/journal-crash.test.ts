import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { createJournal, loadForResume } from "../../src/session/index.ts";
import { openaiText } from "../support/stub-scripts.ts";
import {
  type CrashBox,
  crashBox,
  ITERATIONS,
  journalProblems,
  killAt,
  planKill,
  resumeWithNex,
  seeded,
  startWorker,
} from "./crash-harness.ts";
import { journalMessage } from "./fixtures/versions.ts";

test("a journal appended to and killed with SIGKILL at random moments (a process crash: the page cache survives) keeps every message intact and resumes", async () => {
  const { random, label } = seeded(4);
  const seed = Math.floor(random() * 2 ** 31);
  const box = crashBox();
  try {
    let path: string | null = null;
    let total = 0;
    const torn = new Set<number>();
    for (let i = 0; i < ITERATIONS; i++) {
      const sync = random() < 0.5 ? "always" : "turn";
      const plan = planKill(random, "m ", 40, 4);
      const where = `journal kill ${i + 1} (${sync}, ${JSON.stringify(plan)}) ${label}`;
      const worker = startWorker("journal-worker.ts", [
        join(box.dataDir, "nex"),
        box.workspace,
        String(seed),
        sync,
        path ?? "",
      ]);
      const outcome = await killAt(worker, plan);
      assert.ok(outcome.killed, `${where}: the worker ended by itself: ${outcome.stderr}`);
      path ??= outcome.lines.find((line) => line.startsWith("ready "))?.slice(6) ?? null;
      if (path === null) continue;
      const reported = outcome.lines
        .filter((line) => line.startsWith("m "))
        .map((l) => Number(l.slice(2)));
      const { problems, messages } = await journalProblems(
        path,
        (message, seq) => {
          try {
            assert.deepEqual(message, journalMessage(seed, seq));
            return null;
          } catch {
            return "differs from what was appended";
          }
        },
        torn,
      );
      assert.deepEqual(problems, [], `${where}: ${path}`);
      // Every append that returned is on disk; at most the one under way when the kill came is extra.
      const floor = Math.max(total, reported.at(-1) ?? 0);
      assert.ok(
        messages >= floor && messages <= floor + 1,
        `${where}: ${messages} messages after ${floor} appended (before: ${total}; this run: ${reported[0]}..${reported.at(-1)})`,
      );
      total = messages;

      const resumed = await loadForResume(path, { budgetTokens: 50_000 });
      const kept = resumed.messages.slice(
        resumed.messages.length - resumed.repairs.length - resumed.keptMessages,
        resumed.messages.length - resumed.repairs.length,
      );
      const first = total - kept.length + 1;
      for (const [k, message] of kept.entries()) {
        assert.deepEqual(
          message,
          journalMessage(seed, first + k),
          `${where}: resumed message ${first + k}`,
        );
      }
    }
    assert.ok(path, `no kill let the worker start a journal ${label}`);

    await assertResumes(box, seed, label);
  } finally {
    box.dispose();
  }
});

// Replays the failure NEX_CRASH_SEED=855918484 met by chance: the kill came right after a prompt.
test("a journal that ends on a prompt resumes with the new prompt joined to it in one user message", async () => {
  const seed = 855918484;
  const box = crashBox();
  try {
    const journal = await createJournal(join(box.dataDir, "nex"), {
      workspace: box.workspace,
      provider: "openai",
      model: "stub-model",
      baseUrl: "http://127.0.0.1:1/v1",
    });
    for (let seq = 1; seq <= 345; seq++) journal.appendMessage(journalMessage(seed, seq));
    journal.close();
    await assertResumes(box, seed, "(a journal ending on prompt 345)");
  } finally {
    box.dispose();
  }
});

/**
 * `nex resume --last` with a new prompt sends every kept prompt as it was appended. The wire never
 * carries two user messages in a row, so a conversation that ends on a prompt (the kill came right
 * after one) or keeps only its note shares its last user message with the new prompt.
 */
async function assertResumes(box: CrashBox, seed: number, label: string): Promise<void> {
  const { result, bodies } = await resumeWithNex(box, [openaiText("Resumed.")], "carry on");
  assert.equal(result.code, 0, `nex resume --last failed ${label}: ${result.stderr}`);
  assert.equal(result.stdout.trim(), "Resumed.");
  const sent = (bodies[0] as { messages: { role: string; content: unknown }[] }).messages;
  const last = sent.at(-1);
  assert.equal(last?.role, "user", label);
  assert.match(String(last?.content), /(^|\n\n)carry on$/, label);
  for (const message of sent) {
    if (message.role !== "user") continue;
    // Files the journal read and the resume found changed are named to the model before the new prompt.
    const content = String(message.content).replace(
      /\n\n\[nex: this session was resumed\. [^\n]*\](?=\n\ncarry on$)/,
      "",
    );
    const seq = Number(/^Prompt (\d+):/.exec(content)?.[1]);
    if (!Number.isInteger(seq)) continue;
    const appended = (journalMessage(seed, seq) as { text: string }).text;
    const expected: string = message === last ? `${appended}\n\ncarry on` : appended;
    assert.equal(content, expected, `prompt ${seq} ${label}`);
  }
}

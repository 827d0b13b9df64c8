// `/fork` in the real chat: a copy of the session under a new id that the chat goes on in, with the
// same conversation on the wire; the original journal stays as it was, resumable.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

interface WireMessage {
  role: string;
  content: unknown;
}

test("/fork copies the session, switches to the copy, and leaves the original resumable", async (t) => {
  const nex = await startNexTui([openaiText("Noted: 42."), openaiText("Trying another way.")]);
  t.after(() => nex.close());
  nex.pty.write(`remember 42${keys.enter}`);
  await nex.pty.waitFor("Noted: 42.");
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  nex.pty.write(`/fork${keys.enter}`);
  await nex.pty.waitFor(/as \d{8}-\d{6}-[0-9a-z]{4}/);
  const flat = nex.pty.history().replace(/\s+/g, " ");
  const ids = /Forked session (\S+) as (\S+), with/.exec(flat);
  assert.ok(ids, flat);
  const [, original, fork] = ids as unknown as [string, string, string];
  assert.notEqual(original, fork);
  assert.match(flat, new RegExp(`nex resume ${original}\``));
  assert.match(flat, new RegExp(`nex resume ${fork}\``));
  // The chat reopened on the fork: it shows where the conversation left off.
  await nex.pty.waitFor("/help for commands");
  await nex.pty.readyForKeys();
  nex.pty.write(`another way${keys.enter}`);
  await nex.pty.waitFor("Trying another way.");
  const body = nex.chatRequests()[1]?.body as { messages: WireMessage[] };
  assert.deepEqual(
    body.messages.filter((m) => m.role !== "system").map((m) => [m.role, m.content]),
    [
      ["user", "remember 42"],
      ["assistant", "Noted: 42."],
      ["user", "another way"],
    ],
  );
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  const sessions = join(nex.dir, "data", "nex", "sessions");
  assert.deepEqual(
    readdirSync(sessions)
      .filter((f) => f.endsWith(".jsonl"))
      .sort(),
    [`${original}.jsonl`, `${fork}.jsonl`].sort(),
  );
  const originalJournal = readFileSync(join(sessions, `${original}.jsonl`), "utf8");
  const forkJournal = readFileSync(join(sessions, `${fork}.jsonl`), "utf8");
  assert.match(originalJournal, /remember 42/);
  assert.doesNotMatch(originalJournal, /another way/, "the original is left as it was");
  assert.match(forkJournal, /remember 42[\s\S]*another way/);
  const header = JSON.parse(forkJournal.split("\n")[0] ?? "") as Record<string, unknown>;
  assert.equal(header.id, fork);
  assert.equal(header.forkedFrom, original);
});

test("after /rewind, /fork's resumed chat counts only the messages still in the conversation", async (t) => {
  const nex = await startNexTui([openaiText("First answer."), openaiText("Second answer.")], {
    cols: 80,
    rows: 30,
  });
  t.after(() => nex.close());
  nex.pty.write(`first question${keys.enter}`);
  await nex.pty.waitFor("First answer.");
  await nex.pty.waitUntil((s) => !spinnerShown(s) && s.includes("Ask nex"), "idle");
  nex.pty.write(`second question${keys.enter}`);
  await nex.pty.waitFor("Second answer.");
  await nex.pty.waitUntil((s) => !spinnerShown(s) && s.includes("Ask nex"), "idle");
  nex.pty.write(`/rewind 2 yes${keys.enter}`);
  await nex.pty.waitFor(/Rewound|rewound/);
  await nex.pty.waitUntil((s) => s.includes("second question") && s.includes("›"), "draft back");
  // The rewound prompt is back in the input box: clear it before the command.
  nex.pty.write("\x15");
  await nex.pty.waitFor("Ask nex");
  nex.pty.write(`/fork${keys.enter}`);
  await nex.pty.waitFor(/Journal ha[sd] \d+ messages?/);
  const flat = nex.pty.history().replace(/\s+/g, " ");
  assert.match(flat, /Journal has 2 messages/, flat);
});

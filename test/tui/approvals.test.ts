// Approvals that show the change, in the real chat in a real pseudo-terminal: the diff of an edit
// before the answer, what "for this session" covers, and read-only commands that run unasked.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { answerPrompt } from "./tui-harness.ts";

test("an edit's approval prompt shows its diff before the answer, and says what a session yes covers", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "read_file", args: { path: "notes.txt" } }),
      openaiToolCall({
        name: "edit_file",
        args: { path: "notes.txt", old_string: "second line", new_string: "SECOND LINE, edited" },
      }),
      openaiText("Edited."),
    ],
    { cols: 100, rows: 40, files: { "notes.txt": "first line\nsecond line\nthird line\n" } },
  );
  t.after(() => nex.close());
  nex.pty.write(`edit the notes${keys.enter}`);
  const screen = await nex.pty.waitFor("Allow edit_file?");
  t.diagnostic(`approval prompt:\n${screen}`);
  assert.match(screen, /^│ -second line\s+│$/m, "the removed line");
  assert.match(screen, /^│ \+SECOND LINE, edited\s+│$/m, "the added line");
  assert.match(screen, /^│ @@ /m, "the hunk header");
  assert.match(screen, /a approves every edit_file call, for this session/);
  assert.equal(
    readFileSync(join(nex.workspace, "notes.txt"), "utf8"),
    "first line\nsecond line\nthird line\n",
    "nothing changed before the answer",
  );
  await answerPrompt(nex.pty, "y");
  await nex.pty.waitFor("Edited.");
  assert.equal(
    readFileSync(join(nex.workspace, "notes.txt"), "utf8"),
    "first line\nSECOND LINE, edited\nthird line\n",
  );
});

test("a read-only command runs in ask mode without a question; a writing one still asks", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "bash", args: { command: "ls -la && cat notes.txt | head -1" } }),
      openaiText("Listed."),
      openaiToolCall({ name: "bash", args: { command: "touch made.txt" } }),
    ],
    { cols: 100, rows: 40, files: { "notes.txt": "hello notes\n" } },
  );
  t.after(() => nex.close());
  nex.pty.write(`look around${keys.enter}`);
  await nex.pty.waitFor("Listed.");
  assert.doesNotMatch(nex.pty.history(), /Allow bash\?/, "no question for ls and cat");
  assert.match(nex.pty.history(), /hello notes/);
  nex.pty.write(`now make a file${keys.enter}`);
  const asked = await nex.pty.waitFor("Allow bash?");
  t.diagnostic(`command prompt:\n${asked}`);
  assert.match(asked, /bash: touch made\.txt/);
  assert.match(asked, /in \S+ · (sandboxed \(workspace-write, no network\)|UNSANDBOXED)/);
});

// `/diff` in the real chat: what this session changed, per file, against undo's snapshots: an edit
// as -/+ lines, a created file, a deleted one; after /undo, nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { saveCapture } from "./save-capture.ts";

const idle = (screen: string) => screen.includes("Ask nex");

for (const [cols, rows] of [
  [120, 40],
  [80, 30],
] as const) {
  test(`/diff at ${cols}×${rows} shows each changed file's diff; after /undo it shows none`, async (t) => {
    const nex = await startNexTui(
      [
        openaiToolCall({ name: "read_file", args: { path: "notes.txt" } }),
        openaiToolCall({
          name: "edit_file",
          args: { path: "notes.txt", old_string: "second line", new_string: "SECOND LINE" },
        }),
        openaiToolCall({
          name: "write_file",
          args: { path: "src/new.ts", content: "export const x = 1;\n" },
        }),
        openaiToolCall({ name: "bash", args: { command: "rm old.txt" } }),
        openaiText("Done editing."),
      ],
      {
        args: ["--yes"],
        cols,
        rows,
        files: { "notes.txt": "first line\nsecond line\nthird line\n", "old.txt": "going away\n" },
      },
    );
    t.after(() => nex.close());
    nex.pty.write(`tidy up${keys.enter}`);
    await nex.pty.waitFor("Done editing.");
    await nex.pty.waitUntil(idle, "the prompt back");
    nex.pty.write(`/diff${keys.enter}`);
    const screen = await nex.pty.waitFor(/3 files changed in this session/);
    await nex.pty.waitUntil(idle, "the prompt back");
    const shown = nex.pty.history();
    saveCapture(`diff-${cols}x${rows}`, nex.pty.screen());
    assert.match(shown, /^notes\.txt \(changed\)$/m);
    assert.match(shown, /^-second line$/m);
    assert.match(shown, /^\+SECOND LINE$/m);
    assert.match(shown, /^ first line$/m, "context lines");
    assert.match(shown, /^src\/new\.ts \(created\)$/m);
    assert.match(shown, /^\+export const x = 1;$/m);
    assert.match(shown, /^old\.txt \(deleted\)$/m);
    assert.match(shown, /^-going away$/m);
    assert.ok(screen.length > 0);

    nex.pty.write(`/undo${keys.enter}`);
    await nex.pty.waitFor(/Restored|restored/);
    await nex.pty.waitUntil(idle, "the prompt back");
    nex.pty.write(`/diff${keys.enter}`);
    await nex.pty.waitFor("No change of this session is in the workspace");
  });
}

// The smaller things a daily user meets, in the real chat in a real pseudo-terminal: /help and
// /status as aligned tables, /export outside the workspace, a hook-blocked call named, a prompt
// refused before it was sent said so and put back in the box. Nothing wider than the terminal.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";
import { waitForRedrawAt } from "./tui-harness.ts";

/** The column where `text` starts on its row of `screen`, or -1. */
function columnOf(screen: string, text: string): number {
  const row = screen.split("\n").find((line) => line.includes(text));
  return row === undefined ? -1 : row.indexOf(text);
}

for (const [cols, rows] of [
  [120, 40],
  [80, 30],
] as const) {
  test(`at ${cols}x${rows} /help aligns every description, long names included, and /status wraps under its values`, async (t) => {
    const nex = await startNexTui([openaiText("Hi.")], { cols, rows });
    t.after(() => nex.close());
    nex.pty.write(`hello${keys.enter}`);
    await nex.pty.waitFor("Hi.");
    nex.pty.write(`/help${keys.enter}`);
    await nex.pty.waitFor("quit (Ctrl-C twice does the same)");
    const help = nex.pty.history();
    t.diagnostic(help);
    const column = columnOf(help, "undo the file changes");
    assert.ok(column > 0);
    for (const description of ["summarise the conversation", "this help", "how hard the model"])
      assert.equal(columnOf(help, description), column, `"${description}" in the column`);
    assert.match(
      help,
      /^\/reasoning effort low\|medium\|high\|off$/m,
      "a long name on its own row",
    );
    nex.pty.write(`/status${keys.enter}`);
    await nex.pty.waitFor(/^file +\S/m);
    const status = nex.pty.history();
    t.diagnostic(status);
    const valueColumn = columnOf(status, "this chat: ");
    assert.equal(columnOf(status, "m (openai)"), valueColumn, "the values in one column");
    const tokenRows = status.slice(status.indexOf("this chat: ")).split("\n");
    const continuation = tokenRows.slice(
      1,
      tokenRows.findIndex((row) => row.startsWith("permissions")),
    );
    for (const row of continuation)
      assert.match(row, new RegExp(`^ {${valueColumn}}\\S`), "wrapped under the value");
    assert.deepEqual(nex.pty.terminalWraps(), [], "nothing wider than the terminal");
    if (cols === 120) {
      nex.pty.resize(80, 30);
      await waitForRedrawAt(nex.pty, 80);
      assert.deepEqual(nex.pty.terminalWraps(), [], "nothing wider after the resize");
    }
  });
}

test("/export without a name writes into nex's data folder and says where; the workspace stays clean", async (t) => {
  const nex = await startNexTui([openaiText("The answer is 42.")], { cols: 80, rows: 30 });
  t.after(() => nex.close());
  nex.pty.write(`what is the answer${keys.enter}`);
  await nex.pty.waitFor("The answer is 42.");
  nex.pty.write(`/export${keys.enter}`);
  const said = await nex.pty.waitFor("outside the workspace");
  assert.deepEqual(readdirSync(nex.workspace), [], "nothing new in the workspace");
  const path = /Wrote the conversation to (\S+\.md)/.exec(said.replace(/\n/g, ""))?.[1] ?? "";
  assert.ok(path.startsWith(nex.dir) && existsSync(path), `written where it says: ${path}`);
  assert.match(readFileSync(path, "utf8"), /## You\n\nwhat is the answer/);
});

test("a call a hook blocks shows the command it blocked", async (t) => {
  const nex = await startNexTui(
    [openaiToolCall({ name: "bash", args: { command: "touch ran.txt" } }), openaiText("Blocked.")],
    {
      cols: 80,
      rows: 30,
      config: {
        hooks: {
          PreToolUse: [
            {
              matcher: "Bash",
              hooks: [{ type: "command", command: "echo 'no bash today' >&2; exit 2" }],
            },
          ],
        },
      },
    },
  );
  t.after(() => nex.close());
  nex.pty.write(`make it${keys.enter}`);
  const screen = await nex.pty.waitFor("Blocked.");
  t.diagnostic(screen);
  assert.match(screen, /^● bash \$ touch ran\.txt$/m, "the blocked command named");
  assert.match(screen, /no bash today/);
});

test("an @-path that cannot be attached: said as not sent, the prompt back in the box", async (t) => {
  const nex = await startNexTui([openaiText("Never.")], {
    cols: 80,
    rows: 30,
    files: { "data.bin": "\u0000\u0001 binary bytes" },
  });
  t.after(() => nex.close());
  nex.pty.write(`explain @data.bin please${keys.enter}`);
  const screen = await nex.pty.waitFor("Prompt not sent");
  const back = await nex.pty.waitFor(/│ › explain @data\.bin please/);
  t.diagnostic(back);
  assert.doesNotMatch(screen, /Turn failed: config/);
  assert.match(back, /Not sent: fix it, then Enter\./, "what to do next");
  assert.equal(nex.chatRequests().length, 0, "nothing reached the model");
});

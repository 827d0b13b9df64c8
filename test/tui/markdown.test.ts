// Answers rendered as markdown in the real chat, in a real pseudo-terminal, at 120 and 60 columns:
// no markdown syntax left on screen, tables inside the width, code highlighted, no row wider than
// the terminal (a wider one wraps, and its tail shows at the start of the next row).
import assert from "node:assert/strict";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

const ANSWER = [
  "# Release plan",
  "",
  "Ship **three** things and *one* `flag`; see [the docs](https://example.com/docs).",
  "",
  "- build the **bundle**",
  "- run the tests",
  "",
  "> Nothing ships on a Friday.",
  "",
  "| Step | Owner | Notes |",
  "|------|-------|-------|",
  "| build | ana | compiles every package of the monorepo, then writes the tarball and checks its size against the budget |",
  "| test | bo | short |",
  "",
  "```ts",
  "function release(version: string): boolean {",
  "  return version.length > 0;",
  "}",
  "```",
  "",
  "END-OF-ANSWER",
].join("\n");

for (const cols of [120, 60]) {
  test(`markdown answers render at ${cols} columns: no raw syntax, a table inside the width, highlighted code`, async (t) => {
    const nex = await startNexTui([openaiText(ANSWER, { chunkSize: 7 })], { cols, rows: 50 });
    t.after(() => nex.close());
    nex.pty.write(`plan it${keys.enter}`);
    const screen = await nex.pty.waitFor("END-OF-ANSWER");
    t.diagnostic(`screen at ${cols} columns:\n${screen}`);
    assert.match(screen, /^Release plan$/m, "a heading without its #");
    assert.doesNotMatch(screen, /\*\*three\*\*|\*\*bundle\*\*|`flag`|^# /m);
    assert.match(
      screen,
      /Ship three things and one flag; see the docs \(\s*https:\/\/example\.com\/docs\)/,
    );
    assert.match(screen, /^\s*\* build the bundle$/m);
    assert.doesNotMatch(screen, /^\|/m, "the table is drawn, not shown as pipes");
    const table = screen.split("\n").filter((line) => /^[┌│├└]/.test(line));
    assert.ok(table.length >= 5, "the table is drawn as a grid");
    for (const line of table) {
      assert.match(line, /[┐│┤┘]$/, `every table row ends at its border: ${line}`);
      assert.ok(line.length <= cols, `table row within ${cols} columns: ${line}`);
    }
    assert.match(screen, /function release\(version: string\): boolean \{/);
    // Highlighted: the keyword carries a colour of its own.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the colour codes are what is checked
    assert.match(nex.pty.output(), /\x1b\[3\dm(\x1b\[\d+m)*function/);
  });
}

test("a tool block with tab-indented lines stays inside 120 columns", async (t) => {
  const long = `\t\treturn ${"x".repeat(100)};`;
  const content = `function f() {\n${long}\n}\n`;
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "write_file", args: { path: "tabs.ts", content } }),
      openaiText("done"),
    ],
    { cols: 120, rows: 40, args: ["--yes"] },
  );
  t.after(() => nex.close());
  nex.pty.write(`write it${keys.enter}`);
  const screen = await nex.pty.waitFor(/^done$/m);
  const rows = screen.split("\n");
  const at = rows.findIndex((row) => row.includes("return xxx"));
  assert.ok(at >= 0, screen);
  // A row wider than the terminal wraps: its last characters would start the next row.
  assert.match(rows[at] ?? "", /x;$/, `the diff line ends on its own row:\n${screen}`);
});

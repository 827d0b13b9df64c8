// The watch on one short unit repeated back to back: the three loops Qwen2.5-Coder 0.5B streamed on
// llama-server in bench/eval r12 until their 8-minute budgets ran out are found within their first
// thousand characters, and the repetition real answers, files and tables hold is not.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createUnitLoopWatch } from "../../src/providers/turns/unit-loop.ts";

/** Streams `text` in pieces of `piece` characters (the first may differ); where the watch fired. */
function watch(text: string, piece = 5, first = piece) {
  const w = createUnitLoopWatch();
  for (let at = 0; at < text.length; ) {
    const size = at === 0 ? first : piece;
    const found = w.push(text.slice(at, at + size));
    at += size;
    if (found) return { ...found, readTo: Math.min(at, text.length) };
  }
  return null;
}

/** A recorded reply rebuilt verbatim: the text before the loop, then the unit until the length streamed. */
const recorded = (before: string, unit: string, length: number) =>
  (before + unit.repeat(Math.ceil(length / unit.length))).slice(0, length);

// The replies as the event streams recorded them (r12 b shell-hash request 1, b add-flag-py request 9,
// a csv-answer request 1): each is its text before the loop, then the unit until the budget ran out.
const shellHash = recorded("d6a093c989b2c89c2b64f10b4", "f6a42f9c2", 3620);
const addFlagPy = recorded(
  '{"name": "todo_write", "arguments": {"todos": [',
  '"edit_file", ',
  6312,
);
const csvBefore = [
  "```json",
  '{"name": "read_file", "arguments": {"path": "sales.csv", "offset": 1, "limit": 2000}}',
  '{"name": "edit_file", "arguments": {"path": "sales.csv", "old_string": "region north", "new_string": "region south"}}',
  `{"name": "bash", "arguments": {"command": "grep -oE '[0-9]+ [a-zA-Z]+ [0-9]+ [0-9]+ [a-zA-Z]+ [0-9]+ [a-zA-Z]+ `,
].join("\n");
const csvAnswer = recorded(csvBefore, "[0-9]+ ", 5271);

test("r12's three loops are found within their first thousand characters, keeping the text before the loop and its unit once", () => {
  const cases = [
    { text: shellHash, unit: 9, kept: "d6a093c989b2c89c2b64f10b4f6a42f9c2" },
    {
      text: addFlagPy,
      unit: 13,
      kept: '{"name": "todo_write", "arguments": {"todos": ["edit_file", ',
    },
    {
      text: csvAnswer,
      unit: 7, // The run starts at the "]+ " that ends "[a-zA-Z]+ ": the unit is "]+ [0-9".
      kept: `${csvBefore}[0-9`,
    },
  ];
  for (const { text, unit, kept } of cases) {
    for (const piece of [1, 5, 16, 64]) {
      const found = watch(text, piece);
      assert.ok(found, `found in ${text.slice(0, 40)} (pieces of ${piece})`);
      assert.match(
        found.detail,
        new RegExp(`^the same ${unit} characters \\(.+\\) \\d+ times back to back$`),
      );
      assert.ok(found.readTo < 1000, `found at ${found.readTo} of ${text.length}`);
      assert.equal(text.slice(0, found.keepChars), kept);
    }
  }
  assert.match(watch(shellHash)?.detail ?? "", /^the same 9 characters \("f6a42f9c2"\) 6\d times/);
});

test("a unit of 5 to 64 characters is a loop from 64 times and 512 characters on, and a shorter run is not", () => {
  assert.equal(watch(`x${"abcdefghij".repeat(63)}`), null, "63 times");
  assert.ok(watch(`x${"abcdefghij".repeat(70)}`), "70 times");
  assert.equal(watch(`x${"null,".repeat(100)}`), null, "100 times, 500 characters");
  assert.ok(watch(`x${"null,".repeat(110)}`), "110 times, 550 characters");
  assert.ok(watch(`Let me check. ${"I will read the file. ".repeat(80)}`), "a sentence looping");
  const long = "a sentence of seventy characters that the model wrote again and again ";
  assert.equal(
    watch(long.repeat(100)),
    null,
    "units past 64 characters are left to the call watch",
  );
});

test("after a loop is found the watch stays quiet", () => {
  const w = createUnitLoopWatch();
  assert.equal(w.push("c2f6a42f9".repeat(50)), null);
  assert.ok(w.push("c2f6a42f9".repeat(50)));
  assert.equal(w.push("c2f6a42f9".repeat(500)), null);
});

/** A pretty table as biome writes it: padded cells, a separator as wide as each column. */
function paddedTable(rows: number): string {
  const widths = [12, 40, 120];
  const row = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  const lines = [
    row(["task", "why", "fix"]),
    `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`,
  ];
  for (let i = 0; i < rows; i++) lines.push(row([`t${i}`, "", "x"]));
  return lines.join("\n");
}

/** `xxd` of `bytes` zero bytes: a line per 16 bytes, each with its offset. */
function xxdZeros(bytes: number): string {
  const lines: string[] = [];
  for (let at = 0; at < bytes; at += 16)
    lines.push(`${at.toString(16).padStart(8, "0")}: ${"0000 ".repeat(8)} ${".".repeat(16)}`);
  return lines.join("\n");
}

test("the repetition real answers, files and tables hold is never a loop: rules, padding, tables, hex dumps, byte and zero runs, repeated rows, a file's rows inside a call", () => {
  const writeCall = (content: string) =>
    JSON.stringify({ name: "write_file", arguments: { path: "t.md", content } });
  const legit = [
    `Results\n${"=".repeat(4000)}\n${"-".repeat(4000)}\n${"#".repeat(600)}\n${"-=".repeat(2000)}`,
    `${" ".repeat(3000)}end`,
    paddedTable(200),
    `| a ${"|---".repeat(200)}|`,
    `| h |\n|${" --- |".repeat(80)}`,
    `| a | b |\n|---|---|\n${"| 0 | 0 |\n".repeat(300)}`,
    xxdZeros(4096),
    `00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n00001000`,
    `b'${"\\x00".repeat(2000)}'`,
    `[${"0,".repeat(3000)}0]`,
    `[${"0, ".repeat(3000)}0]`,
    `0${"0".repeat(6000)}`,
    `const buf = Buffer.from([${"0x00, ".repeat(64)}]);`,
    `expected = [${"0.0, ".repeat(100)}0.0]`,
    `const scale = [1${",1.41144".repeat(43)}];`,
    `${"2026-11-27,widget,10\n".repeat(400)}`,
    writeCall("| 0 | 0 |\n".repeat(300)),
    writeCall("0,0,0,0,0,0,0,0\n".repeat(500)),
    // A long paragraph without a line break, as models write them.
    Array.from(
      { length: 30 },
      (_, i) => `Step ${i + 1} reads record ${i * 7} and keeps its offset for the next pass.`,
    ).join(" "),
  ];
  for (const text of legit) {
    for (const piece of [1, 5, 64, 4096])
      assert.equal(watch(text, piece), null, `${text.slice(0, 60)} (pieces of ${piece})`);
  }
});

test("a JSON \\n escape split across two pieces still ends the line (a file's rows inside a call)", () => {
  // Every piece ends on the backslash and the next starts with its `n`: no piece holds a whole `\n`.
  const text = `${"abcdef\\n".repeat(300)}`;
  assert.equal(watch(text, 8, 7), null);
  // Without the escape the same text is one line: a loop.
  assert.ok(watch("abcdef/n".repeat(300), 8, 7));
});

test("the repository's own markdown (tables padded by biome, long rules) and every recorded answer of bench/eval are quiet", () => {
  const root = join(import.meta.dirname, "..", "..");
  const files = [
    "ARCHITECTURE.md",
    "CHANGELOG.md",
    "README.md",
    "bench/eval/RESULTS.md",
    ...readdirSync(join(root, "docs"))
      .filter((name) => name.endsWith(".md"))
      .map((name) => `docs/${name}`),
  ];
  for (const file of files)
    assert.equal(watch(readFileSync(join(root, file), "utf8"), 64), null, file);
  const records = join(root, "bench", "eval", "records");
  let answers = 0;
  for (const dir of [records, join(records, "first-session"), join(records, "second-session")]) {
    for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
      const record = JSON.parse(readFileSync(join(dir, name), "utf8")) as {
        results: { id: string; answer?: string }[];
      };
      for (const result of record.results) {
        if (!result.answer) continue;
        answers += 1;
        assert.equal(watch(result.answer), null, `${name} ${result.id}`);
      }
    }
  }
  assert.ok(answers > 50, `${answers} answers`);
});

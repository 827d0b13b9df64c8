// docs/workgraph-parity.md walks workgraph's own agent loop capability by capability. It stays true:
// no row is "missing", every nex file it names exists, and every test it names is in that test file.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const root = join(import.meta.dirname, "..", "..");
const doc = readFileSync(join(root, "docs", "workgraph-parity.md"), "utf8");
const rows = doc.split("\n").filter((line) => line.startsWith("| ") && !/^\| -/.test(line));
// The nex column: the third of four cells (capability, workgraph, nex, status), the second of three.
const nexCells = rows.map((row) => {
  const all = cells(row);
  return all.length === 4 ? (all[2] ?? "") : (all[1] ?? "");
});
const nexText = nexCells.join("\n");

/** A row's cells; a `|` inside a cell is written `\|`. */
function cells(row: string): string[] {
  return row
    .slice(2, -2)
    .split(/(?<!\\) \| /)
    .map((cell) => cell.trim());
}

test("the parity doc has no row marked missing, and each row says has, has differently, or decided against with a reason", () => {
  const statuses = rows
    .map(cells)
    .filter((row) => !["Status", "Capability", "Flag", "Command"].includes(row[0] ?? ""))
    .map((row) => row.at(-1) ?? "");
  assert.ok(statuses.length > 60, `${statuses.length} rows`);
  for (const status of statuses)
    assert.match(
      status,
      /^(has|has, differently(: .+)?|decided against: .{20,}|decided against `[^`]+`: .{20,})$/,
      status,
    );
});

test("every nex file the parity doc names exists, and every test it quotes is in the file it names", () => {
  for (const path of new Set(nexText.match(/(?<=`)(src|test)\/[^`\s]+(?=`)/g) ?? [])) {
    assert.ok(existsSync(join(root, path)), `${path} does not exist`);
  }
  const quoted = /`(test\/[^`]+\.test\.ts)`:\s*((?:(?:"[^"]*"|'[^']*')(?:,\s*)?)+)/g;
  let checked = 0;
  for (const match of nexText.matchAll(quoted)) {
    const [, file, list] = match as unknown as [string, string, string];
    const source = readFileSync(join(root, file), "utf8");
    for (const name of list.match(/"[^"]*"|'[^']*'/g) ?? []) {
      // A name cut with "…" is checked up to the cut.
      const text = name.slice(1, -1).replace(/,? …$/, "");
      assert.ok(source.includes(text), `${file} has no test named ${name}`);
      checked += 1;
    }
  }
  assert.ok(checked > 60, `${checked} test names checked`);
});

test("every row nex has names a test that proves it", () => {
  rows.map(cells).forEach((row, i) => {
    if (!/^has\b/.test(row.at(-1) ?? "")) return;
    assert.match(
      nexCells[i] ?? "",
      /`test\/[^`]+\.test\.ts`: ["']/,
      `no test named for: ${row[0]}`,
    );
  });
});

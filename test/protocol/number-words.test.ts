// Every number nex writes goes through protocol/counts.ts. `toLocaleString` would load the ICU
// locale data on first use, about 12 ms of CPU in a process that otherwise starts in 30: a notice
// that happens to print a number must not cost that.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { test } from "node:test";
import { formatCount } from "../../src/protocol/index.ts";

const src = resolve(import.meta.dirname, "..", "..", "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : entry.name.endsWith(".ts") ? [path] : [];
  });
}

test("numbers are written by formatCount, never toLocaleString (locale data costs start-up time)", () => {
  const users = sourceFiles(src)
    .filter((file) => !file.endsWith(join("protocol", "counts.ts")))
    .filter((file) => /\.toLocaleString\(/.test(readFileSync(file, "utf8")))
    .map((file) => relative(src, file));
  assert.deepEqual(users, []);
});

test("formatCount writes what toLocaleString('en-US') writes", () => {
  for (const n of [0, 7, 999, 1000, 12_345, 1_234_567, -4321, 2 ** 53 - 1, 1.5])
    assert.equal(formatCount(n), n.toLocaleString("en-US"));
});

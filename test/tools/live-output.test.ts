// A running command's live tail never starts inside a word: cut there, the end of a secret would no
// longer be recognised (and replaced) as one.
import assert from "node:assert/strict";
import { test } from "node:test";
import { liveOutput } from "../../src/tools/shell/live-output.ts";
import { until } from "../support/until.ts";

test("the live tail is cut at whitespace only, so no partial secret can start it; a character split between chunks is whole", async () => {
  const key = "sk-proj-0123456789abcdefghijklmnopqrstuvwxyz";
  const reports: string[] = [];
  const live = liveOutput((tail) => reports.push(tail));
  // The key straddles the point where the kept tail would be cut by length alone.
  live.see(Buffer.from(`${"x".repeat(20)} ${key}${"y".repeat(2030)}\nend é`.slice(0, -1)));
  live.see(Buffer.from("é").subarray(0, 1));
  live.see(Buffer.from("é").subarray(1));
  // The quarter second's report, however late a loaded machine runs it.
  await until(() => reports.length > 0, "a report of the tail");
  live.stop();
  const tail = reports.at(-1) ?? "";
  assert.ok(
    !/[0-9a-z]{5,}y{10}/.test(tail.split("\n")[0] ?? ""),
    `a partial word starts the tail: ${tail.slice(0, 60)}`,
  );
  assert.match(tail, /end é$/);
});

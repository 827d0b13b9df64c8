// read_file's pages checked against the file's bytes: followed from offset 1 by the offsets the
// results give, every line appears exactly once, in order, numbered right, whole or marked as cut.

import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { test } from "node:test";
import fc from "fast-check";
import { host, run, sandbox } from "../tools/helpers.ts";
import { conformanceSeed } from "./seed.ts";

const RUNS = Number(process.env.NEX_CONFORMANCE_RUNS ?? 40) * 10;

const lineArb = fc.oneof(
  { weight: 8, arbitrary: fc.string({ maxLength: 60, unit: "grapheme" }) },
  { weight: 1, arbitrary: fc.constantFrom("", "\t", "   ") },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.integer({ min: 1990, max: 2010 }), fc.constantFrom("a", "é", "😀", "ab"))
      .map(([n, unit]) => unit.repeat(Math.ceil(n / unit.length))),
  },
);

const fileArb = fc.record({
  lines: fc.array(
    lineArb.map((l) => l.replace(/[\r\n]/g, "")),
    { minLength: 1, maxLength: 120 },
  ),
  crlf: fc.boolean(),
  finalBreak: fc.boolean(),
  limit: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
  cap: fc.constantFrom(2048, 8192, 32 * 1024),
});

const CUT = /… \[line cut: [\d,]+ characters; read it with bash\]$/;

test("read_file pages cover every line of the file exactly once, numbered right, cut lines marked", async () => {
  let pages = 0;
  let files = 0;
  const box = sandbox();
  const hosts = new Map<number, ReturnType<typeof host>>();
  await fc.assert(
    fc.asyncProperty(fileArb, async ({ lines: written, crlf, finalBreak, limit, cap }) => {
      const text = written.join(crlf ? "\r\n" : "\n") + (finalBreak ? (crlf ? "\r\n" : "\n") : "");
      writeFileSync(box.path("f.txt"), text);
      const tools = hosts.get(cap) ?? host(box, { outputCap: cap });
      hosts.set(cap, tools);
      files += 1;
      // The file's lines: a final line break ends the last line, it does not start another.
      const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
      if (lines.at(-1) === "") lines.pop();
      if (lines.length === 0) {
        const out = await run(tools, "read_file", { path: "f.txt" });
        assert.equal(out.content, "f.txt is empty (0 bytes).");
        return;
      }
      const seen: number[] = [];
      let offset: number | undefined = 1;
      while (offset !== undefined) {
        pages += 1;
        const out = await run(tools, "read_file", {
          path: "f.txt",
          offset,
          ...(limit ? { limit } : {}),
        });
        assert.equal(out.isError, false, out.content);
        const [header, ...body] = out.content.split("\n");
        assert.match(header ?? "", /^f\.txt \(/);
        let footer = "";
        if (body.at(-1)?.startsWith("(Showing lines")) footer = body.pop() as string;
        body.forEach((numbered, i) => {
          const m = /^ *(\d+)\t([\s\S]*)$/.exec(numbered);
          assert.ok(m, `not a numbered line: ${numbered.slice(0, 80)}`);
          const n = Number(m[1]);
          assert.equal(n, (offset as number) + i, "line numbers run on from the offset");
          const shown = m[2] as string;
          const actual = lines[n - 1] as string;
          if (CUT.test(shown)) {
            const kept = shown.replace(CUT, "");
            assert.ok(
              actual.startsWith(kept) && kept.length < actual.length,
              `line ${n} cut wrongly`,
            );
            assert.ok(kept.isWellFormed(), `line ${n} was cut inside a character`);
          } else assert.equal(shown, actual, `line ${n}`);
          seen.push(n);
        });
        const next = /Continue with offset (\d+)\.\)$/.exec(footer);
        const last = seen.at(-1) ?? 0;
        if (next) {
          assert.equal(Number(next[1]), last + 1, "the next offset follows the last line shown");
          offset = last + 1;
        } else {
          assert.equal(last, lines.length, `the last page ends at the last line: ${footer}`);
          offset = undefined;
        }
      }
      assert.deepEqual(
        seen,
        lines.map((_, i) => i + 1),
        "every line exactly once",
      );
    }),
    { numRuns: RUNS, ...conformanceSeed() },
  );
  console.log(`read_file conformance: ${files} files, ${pages} pages`);
});

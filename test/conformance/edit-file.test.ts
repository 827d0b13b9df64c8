// edit_file checked on generated Python-like files: an exact old_string gives exactly the string
// replacement; an old_string written with other indentation either gives the file the model meant
// (each line at the file's depth, the file's line endings) or is refused with the file unchanged.

import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import fc from "fast-check";
import { host, run, sandbox } from "../tools/helpers.ts";
import { conformanceSeed } from "./seed.ts";

const RUNS = Number(process.env.NEX_CONFORMANCE_RUNS ?? 40) * 15;

interface CodeLine {
  depth: number;
  text: string;
}

/** Python-like code: a block opener (`…:`) is followed by a deeper line; blank lines here and there. */
const codeArb: fc.Arbitrary<CodeLine[]> = fc
  .array(fc.tuple(fc.nat(3), fc.constantFrom("if", "for", "x", "return", "blank"), fc.nat(999)), {
    minLength: 3,
    maxLength: 40,
  })
  .map((steps) => {
    const out: CodeLine[] = [{ depth: 0, text: "def f(a):" }];
    let depth = 1;
    for (const [up, kind, n] of steps) {
      if (kind === "blank") {
        out.push({ depth: 0, text: "" });
        continue;
      }
      const text =
        kind === "if"
          ? `if a > ${n}:`
          : kind === "for"
            ? `for i${n} in range(${n}):`
            : kind === "x"
              ? `x${n} = a + ${n}`
              : `return x${n}`;
      out.push({ depth, text });
      depth = text.endsWith(":") ? depth + 1 : Math.max(1, depth - (up % 2));
    }
    return out;
  });

const UNITS = ["    ", "  ", "\t"];
const render = (lines: CodeLine[], unit: string, base = ""): string[] =>
  lines.map((l) => (l.text === "" ? "" : base + unit.repeat(l.depth) + l.text));

const caseArb = fc.record({
  code: codeArb,
  unit: fc.constantFrom(...UNITS),
  crlf: fc.boolean(),
  window: fc.tuple(fc.nat(), fc.integer({ min: 1, max: 6 })),
  how: fc.constantFrom("exact", "dedent", "indent", "unit", "perturb"),
  writtenUnit: fc.constantFrom(...UNITS),
  extra: fc.boolean(),
});

test("edit_file: exact replacement, or the re-indented edit the model meant, or a refusal that changes nothing", async () => {
  const counts = { exact: 0, tolerant: 0, refused: 0, ambiguous: 0 };
  let n = 0;
  await fc.assert(
    fc.asyncProperty(caseArb, async ({ code, unit, crlf, window, how, writtenUnit, extra }) => {
      const eol = crlf ? "\r\n" : "\n";
      const fileLines = render(code, unit);
      const text = `${fileLines.join(eol)}${eol}`;
      const start = window[0] % code.length;
      const end = Math.min(code.length, start + window[1]);
      const slice = code.slice(start, end);
      if (slice.every((l) => l.text === "")) return;
      const minDepth = Math.min(...slice.filter((l) => l.text !== "").map((l) => l.depth));
      // old_string as the model wrote it; new_string the same lines changed, in the same style.
      let written: string[];
      if (how === "exact") written = fileLines.slice(start, end);
      else if (how === "unit") written = render(slice, writtenUnit);
      else if (how === "indent") written = render(slice, unit, "  ");
      else {
        written = render(
          slice.map((l) => ({ ...l, depth: l.depth - minDepth })),
          unit,
        );
        if (how === "perturb") {
          const i = written.findIndex((l) => l !== "");
          written[i] = ` ${written[i]}`;
        }
      }
      const change = (line: string): string => (line === "" ? "" : `${line}  # changed`);
      const newWritten = written.map(change);
      // A new line at the depth of an existing one: it must land at that line's depth in the file.
      const copyOf = slice.findIndex((l) => l.text !== "");
      if (extra) newWritten.push(`${written[copyOf]?.match(/^[ \t]*/)?.[0]}pass  # added`);
      const intended = [
        ...fileLines.slice(0, start),
        ...fileLines.slice(start, end).map(change),
        ...(extra ? [`${fileLines[start + copyOf]?.match(/^[ \t]*/)?.[0]}pass  # added`] : []),
        ...fileLines.slice(end),
      ];
      const intent = `${intended.join(eol)}${eol}`;

      n += 1;
      const name = `m${n}.py`;
      // A fresh workspace each time: undo's snapshot of a growing one would cost more with every case.
      const box = sandbox();
      const tools = host(box);
      writeFileSync(box.path(name), text);
      await run(tools, "read_file", { path: name });
      const oldString = written.join("\n");
      const out = await run(tools, "edit_file", {
        path: name,
        old_string: oldString,
        new_string: newWritten.join("\n"),
      });
      const after = readFileSync(box.path(name), "utf8");
      const where = `${how} ${JSON.stringify({ old: oldString, unit, crlf })}: ${out.content}`;
      if (out.isError) {
        assert.equal(after, text, `a refused edit changed the file: ${where}`);
        if (out.code === "ambiguous_match") counts.ambiguous += 1;
        else {
          counts.refused += 1;
          // Only an inconsistent re-indentation is refused; the others are unambiguous edits.
          assert.equal(how, "perturb", `refused: ${where}`);
          assert.match(out.content, /file: /, "the refusal shows the file's lines");
        }
        return;
      }
      assert.match(out.content, /^Edited m\d+\.py: 1 replacement/, where);
      const exactOld = oldString.replaceAll("\n", eol);
      if (text.includes(exactOld)) {
        // Found as it is: exactly the string replacement, whatever it was meant to be.
        counts.exact += 1;
        assert.equal(text.split(exactOld).length, 2, `an ambiguous edit succeeded: ${where}`);
        assert.equal(after, text.replace(exactOld, newWritten.join(eol)), where);
        return;
      }
      counts.tolerant += 1;
      assert.match(out.content, /matched only when ignoring/, where);
      assert.equal(after, intent, `the edit did not give the file the model meant: ${where}`);
      if (crlf) assert.doesNotMatch(after, /[^\r]\n/, "a bare LF in a CRLF file");
    }),
    { numRuns: RUNS, ...conformanceSeed() },
  );
  console.log(
    `edit_file conformance: ${RUNS} edits: ${counts.exact} exact, ${counts.tolerant} re-indented, ${counts.refused} refused as inconsistent, ${counts.ambiguous} ambiguous`,
  );
});

test("edit_file: old_string written with 2-space indents in a 4-space file re-indents every new line, or refuses side by side", async () => {
  const box = sandbox();
  const file = "def g(y):\n    total = 0\n    for i in y:\n        total += i\n    return total\n";
  writeFileSync(box.path("g.py"), file);
  const tools = host(box);
  await run(tools, "read_file", { path: "g.py" });
  const out = await run(tools, "edit_file", {
    path: "g.py",
    old_string: "def g(y):\n  total = 0\n  for i in y:\n    total += i",
    new_string: "def g(y):\n  total = 1\n  for i in y:\n    total *= i\n    print(i)",
  });
  assert.match(out.content, /each ·· level became ····/, out.content);
  assert.equal(
    readFileSync(box.path("g.py"), "utf8"),
    "def g(y):\n    total = 1\n    for i in y:\n        total *= i\n        print(i)\n    return total\n",
  );
  await run(tools, "read_file", { path: "g.py" });
  const refused = await run(tools, "edit_file", {
    path: "g.py",
    old_string: "def g(y):\n  total = 1\n     for i in y:",
    new_string: "def g(y):\n  total = 2\n     for i in y:",
  });
  assert.equal(refused.code, "no_match");
  assert.match(refused.content, /no single re-indentation/);
  assert.match(refused.content, / {5}3 ≠ file: ····for i in y:\n {9}old_string: ·····for i in y:/);
});

test("edit_file: when nothing matches, not even one line, the most similar lines of the file are shown", async () => {
  const box = sandbox();
  writeFileSync(
    box.path("t.py"),
    "import os\n\ndef total(items):\n    s = 0\n    for i in items:\n        s += i\n    return s\n",
  );
  const tools = host(box);
  await run(tools, "read_file", { path: "t.py" });
  const out = await run(tools, "edit_file", {
    path: "t.py",
    old_string: "def totl(itms):\n    s = 00\n    for i in itms:",
    new_string: "def total(items):\n    s = 1",
  });
  assert.equal(out.code, "no_match");
  assert.match(
    out.content,
    /The nearest text in the file \(lines 3-5\):\n {5}3\tdef total\(items\):\n {5}4\t {4}s = 0\n {5}5\t {4}for i in items:/,
  );
});

// grep's regex dialect on generated patterns: the JavaScript backend finds exactly the lines
// ripgrep's own CLI finds (or both refuse), over lines chosen to tell Rust's regex and V8's apart.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { test } from "node:test";
import fc from "fast-check";
import { host, run, sandbox } from "../tools/helpers.ts";
import { hasRipgrep, LINES, resultLines } from "./trees.ts";

const RUNS = Number(process.env.NEX_CONFORMANCE_RUNS ?? 40) * 6;

const TEXT = [
  ...LINES,
  "Straße café naïve",
  "tabs\t\tand  spaces ",
  "under_score and-dash",
  "a.b a-b a/b a\\b",
  "(parens) [brackets] {braces}",
  "ÀÉÎ upper accents",
  "x².y³ superscripts",
  "CJK 漢字 text",
  "trailing space ",
  "$dollar ^caret |pipe",
  "1,000.50 €",
];

const atom = fc.constantFrom(
  "a",
  "e",
  "x",
  "S",
  "k",
  " ",
  "é",
  "😀",
  "漢",
  ".",
  "\\d",
  "\\D",
  "\\w",
  "\\W",
  "\\s",
  "\\S",
  "\\.",
  "\\/",
  "\\-",
  "\\$",
  "\\(",
  "\\{",
  "\\t",
  "\\x{E9}",
  "\\u00DF",
  "\\pL",
  "\\p{Lu}",
  "\\P{L}",
  "\\p{Greek}",
  "\\p{Han}",
  "[a-z]",
  "[^a-z]",
  "[[:alpha:]]",
  "[[:^digit:]]",
  "[\\w-]",
  "[^\\s\\d]",
  "[é-ü]",
  "[.$^]",
  "[]x]",
);
const assertion = fc.constantFrom("^", "$", "\\b", "\\B");
const quantifier = fc.constantFrom("", "", "", "*", "+", "?", "{2}", "{1,3}", "*?", "+?");

const patternArb: fc.Arbitrary<string> = fc.letrec<{ alt: string; seq: string; item: string }>(
  (tie) => ({
    alt: fc.oneof(
      { weight: 4, arbitrary: tie("seq") },
      fc.tuple(tie("seq"), tie("seq")).map(([a, b]) => `${a}|${b}`),
    ),
    seq: fc.array(tie("item"), { minLength: 1, maxLength: 4 }).map((items) => items.join("")),
    item: fc.oneof(
      { depthSize: "small", maxDepth: 3 },
      { weight: 6, arbitrary: fc.tuple(atom, quantifier).map(([a, q]) => a + q) },
      { weight: 1, arbitrary: assertion },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fc.constantFrom("(", "(?:", "(?P<g>"), tie("alt"), quantifier)
          .map(([open, inner, q]) => `${open}${inner})${q}`),
      },
    ),
  }),
).alt;

const caseArb = fc.record({
  pattern: patternArb,
  ignoreCase: fc.boolean(),
});

test("grep's regex dialect: the JavaScript backend finds the lines ripgrep finds, on generated patterns", {
  skip: hasRipgrep ? false : "rg is not installed (CI installs it)",
}, async () => {
  const box = sandbox();
  writeFileSync(box.path("lines.txt"), `${TEXT.join("\n")}\n`);
  const js = host(box, { useRipgrep: false });
  const rg = host(box, { useRipgrep: true });
  let patterns = 0;
  let refusedByBoth = 0;
  let translated = 0;
  await fc.assert(
    fc.asyncProperty(caseArb, async ({ pattern, ignoreCase }) => {
      // Duplicate group names are an error in both; keep one name per pattern.
      let n = 0;
      const unique = pattern.replaceAll("(?P<g>", () => `(?P<g${n++}>`);
      const args = { pattern: unique, path: "lines.txt", ignore_case: ignoreCase };
      const ours = await run(js, "grep", args);
      const viaRipgrep = await run(rg, "grep", args);
      assert.equal(
        viaRipgrep.content,
        ours.content,
        `the backends disagree on ${JSON.stringify(args)}`,
      );
      const cli = spawnSync(
        "rg",
        [
          "--no-config",
          "-n",
          "--no-heading",
          ...(ignoreCase ? ["-i"] : []),
          "-e",
          unique,
          "--",
          "lines.txt",
        ],
        { cwd: box.workspace, encoding: "utf8" },
      );
      patterns += 1;
      if (cli.status === 2) {
        // ripgrep refuses it: nex refuses too, or reads it as newer ripgrep does (`\/`, `\-`).
        if (!ours.isError) translated += 1;
        else refusedByBoth += 1;
        return;
      }
      if (ours.isError) {
        // Refused only for what one engine lacks or reads differently, saying what to write.
        assert.equal(ours.code, "invalid_arguments", ours.content);
        assert.match(ours.content, /fix the pattern/i, ours.content);
        return;
      }
      const expected = cli.stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.replace(/\r$/, ""));
      const got = ours.content.startsWith("No ")
        ? []
        : resultLines(ours.content).map((line) => line.replace(/^lines\.txt:(\d+): /, "$1:"));
      assert.deepEqual(
        got,
        expected,
        `pattern ${JSON.stringify(unique)} (ignore_case ${ignoreCase})`,
      );
    }),
    { numRuns: RUNS },
  );
  console.log(
    `regex dialect: ${patterns} patterns × ${TEXT.length} lines; ${translated} that ripgrep 13 refuses were read as newer ripgrep reads them, ${refusedByBoth} refused by both`,
  );
});

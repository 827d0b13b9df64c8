// Property: whatever level an edit matches at, no byte outside the matched region changes.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { applyReplacements, planEdit } from "../../src/tools/files/edit-match.ts";

const word = fc.stringMatching(/^[a-z(){};=]{1,8}$/);
const line = fc
  .tuple(
    fc.constantFrom("", " ", "  ", "\t"),
    fc.array(word, { minLength: 1, maxLength: 4 }),
    fc.constantFrom("", " ", "\t"),
  )
  .map(([indent, words, trail]) => `${indent}${words.join(" ")}${trail}`);

test("no match level ever changes bytes outside the region it matched", () => {
  fc.assert(
    fc.property(
      fc.array(line, { minLength: 3, maxLength: 30 }),
      fc.nat(),
      fc.integer({ min: 1, max: 4 }),
      fc.constantFrom("exact", "trailing", "indent", "crlf"),
      fc.constantFrom("\n", "\r\n"),
      (lines, at, count, distortion, ending) => {
        const start = at % lines.length;
        const chosen = lines.slice(start, start + count);
        const text = lines.join(ending) + ending;
        let old = chosen.join("\n");
        if (distortion === "trailing") old = chosen.map((l) => l.trimEnd()).join("\n");
        if (distortion === "indent") old = chosen.map((l) => `    ${l.trimStart()}`).join("\n");
        if (distortion === "crlf") old = chosen.join(ending === "\n" ? "\r\n" : "\n");
        const plan = planEdit(text, old, "REPLACED", true);
        if (plan.type !== "match") return;
        const updated = applyReplacements(text, plan.replacements);
        // Rebuild the text from the untouched stretches between replacements: they must be identical.
        const sorted = [...plan.replacements].sort((a, b) => a.start - b.start);
        let at2 = 0;
        let rebuilt = "";
        for (const r of sorted) {
          assert.ok(r.start >= at2, "replacements never overlap");
          rebuilt += text.slice(at2, r.start) + r.text;
          at2 = r.end;
        }
        rebuilt += text.slice(at2);
        assert.equal(updated, rebuilt);
        for (const r of sorted) {
          const region = text.slice(r.start, r.end);
          // What a tolerant level replaced is old_string up to the tolerance it names.
          const norm = (s: string) =>
            s
              .split(/\r?\n/)
              .map((l) => l.trim())
              .join("\n")
              .replace(/\n$/, "");
          assert.equal(norm(region), norm(old));
        }
      },
    ),
    { numRuns: Number(process.env.NEX_FUZZ_RUNS ?? 300) },
  );
});

// matchesGlob answers a plain name against a plain name without minimatch: the answer must be
// minimatch's own for every such pair, dots, dashes, comment and negation marks included.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Minimatch } from "minimatch";
import { loadGlobMatcher, matchesGlob } from "../../src/tools/files/glob-match.ts";

await loadGlobMatcher();

const OPTIONS = {
  nocase: process.platform === "win32" || process.platform === "darwin",
  windowsPathsNoEscape: true,
  nonegate: true,
  nocomment: true,
  optimizationLevel: 2,
  nocaseMagicOnly: true,
} as const;

const NAMES = [
  ...[".bashrc", "bashrc", ".BASHRC", ".", "..", "...", "", "a", "a b", "é", "#x", "-x", "~"],
  ...["x~", "%", "a=b", ",", ";", "'q'", '"', "$x", "^", "|", "&", "`", ":", "a.", ".a.", "a..b"],
  ...["*", "?", "[a]", "a*", "{a,b}", "!a", "+(a)", "@(a)", "a/b", "\\a", ".config/git/**"],
];

test("a plain name matches a plain name exactly as minimatch decides, and globs still go to minimatch", () => {
  const differ: string[] = [];
  for (const pattern of NAMES)
    for (const path of NAMES) {
      if (path.includes("/")) continue;
      const expected = new Minimatch(pattern, OPTIONS).match(path);
      if (matchesGlob(path, pattern) !== expected)
        differ.push(
          `${JSON.stringify(pattern)} ~ ${JSON.stringify(path)}: minimatch says ${expected}`,
        );
    }
  assert.deepEqual(differ, []);
});

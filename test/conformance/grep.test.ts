// grep's answers checked on generated workspaces: the ripgrep and JavaScript backends give the same
// answer, and both give the reference's (ripgrep's own CLI with its own walk when it is installed, a
// small hand-written matcher over git's listing otherwise).

import assert from "node:assert/strict";
import { isUtf8 } from "node:buffer";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import fc from "fast-check";
import { host, run } from "../tools/helpers.ts";
import { conformanceSeed } from "./seed.ts";
import {
  gitListing,
  hasRipgrep,
  resultLines,
  ripgrepListing,
  type TreeSpec,
  treeArb,
  writeTree,
} from "./trees.ts";

const RUNS = Number(process.env.NEX_CONFORMANCE_RUNS ?? 40);
const env = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };

const WORD = "[\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}]";
/** Patterns in ripgrep's syntax, each with a hand-written matcher of what it means there. */
const PATTERNS: [string, (line: string) => boolean][] = [
  ["needle", (l) => l.includes("needle")],
  ["(?i)needle", (l) => /needle/iv.test(l)],
  ["\\d", (l) => /\p{Nd}/v.test(l)],
  ["\\w+\\s", (l) => new RegExp(`${WORD}\\p{White_Space}`, "v").test(l)],
  ["^$", (l) => l === ""],
  ["e$", (l) => l.endsWith("e")],
  ["line.$", (l) => /line.$/s.test(l)],
  ["\\bfoo\\b", (l) => new RegExp(`(?<!${WORD})foo(?!${WORD})`, "v").test(l)],
  ["[^a-z ]", (l) => /[^a-z ]/v.test(l)],
  ["😀|ΑΒΓ", (l) => l.includes("😀") || l.includes("ΑΒΓ")],
  ["\\/to\\/", (l) => l.includes("/to/")],
  ["\\p{Greek}{2}", (l) => /\p{Script_Extensions=Greek}{2}/v.test(l)],
  ["[[:digit:]]{2}", (l) => /[0-9]{2}/.test(l)],
  ["\\{y", (l) => l.includes("{y")],
  ["a.b", (l) => /a[^\n]b/v.test(l)],
  ["\\S$", (l) => /\P{White_Space}$/v.test(l)],
  ["(?i)k", (l) => /k/iv.test(l)],
  ["(?i)S ", (l) => /s /iv.test(l)],
  ["\\x{200B}", (l) => l.includes("\u200b")],
  ["(foo|needle)[ _]", (l) => /(foo|needle)[ _]/.test(l)],
];

interface Scope {
  path?: string;
  glob?: string;
}

const scopeArb = (spec: TreeSpec): fc.Arbitrary<Scope> =>
  fc.oneof(
    fc.constant({}),
    fc.constantFrom(...spec.files.map((f) => f.path)).map((path) => ({ path })),
    fc.constantFrom("a", "b", "a/b", "c").map((path) => ({ path })),
    fc.constantFrom("*.txt", "*.py", "a/*", "**/d.txt").map((glob) => ({ glob })),
  );

const caseArb = treeArb.chain((spec) =>
  fc.record({
    spec: fc.constant(spec),
    queries: fc.array(
      fc.record({
        pattern: fc.integer({ min: 0, max: PATTERNS.length - 1 }),
        scope: scopeArb(spec),
      }),
      { minLength: 4, maxLength: 8 },
    ),
  }),
);

/** ripgrep's own answer: its walk, its ignore rules, its regex. Null when it refuses the pattern. */
function ripgrepAnswer(root: string, pattern: string, scope: Scope): string[] | null {
  const child = spawnSync(
    "rg",
    [
      "--no-config",
      "--hidden",
      "--no-require-git",
      "-n",
      "--no-heading",
      "--with-filename",
      "-g",
      "!.git",
      "-g",
      "!node_modules",
      "-e",
      pattern,
      "--",
      scope.path ?? ".",
    ],
    { cwd: root, env, encoding: "utf8" },
  );
  if (child.status === 2 && /regex parse error/.test(child.stderr)) return null;
  return child.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => line.replace(/^\.\//, "").replace(/\r$/, ""))
    .filter((line) => {
      const path = line.split(":")[0] ?? "";
      return !path.includes("\uFFFD") && (!scope.glob || globMatch(scope.glob, path));
    })
    .sort();
}

function globMatch(glob: string, path: string): boolean {
  const { matchesGlob, basename } = process.getBuiltinModule("node:path");
  return glob.includes("/") ? matchesGlob(path, glob) : matchesGlob(basename(path), glob);
}

/** The hand-written reference: git's listing, then each text file's lines through the matcher. */
function referenceAnswer(
  root: string,
  listing: string[],
  matcher: (line: string) => boolean,
  scope: Scope,
): string[] {
  const out: string[] = [];
  for (const path of listing) {
    // A name that is not UTF-8 cannot be searched by name: grep says so instead (checked below).
    if (path.split("/").includes("node_modules") || path.includes("\uFFFD")) continue;
    if (scope.path && path !== scope.path && !path.startsWith(`${scope.path}/`)) continue;
    if (scope.glob && !globMatch(scope.glob, path)) continue;
    const bytes = readFileSync(join(root, path));
    // Binary files show no lines; bytes that are not UTF-8 are left to the ripgrep comparison.
    if (bytes.includes(0) || !isUtf8(bytes)) continue;
    const lines = bytes.toString("utf8").split("\n");
    if (lines.at(-1) === "") lines.pop();
    lines.forEach((line, i) => {
      if (matcher(line)) out.push(`${path}:${i + 1}:${line.replace(/\r$/, "")}`);
    });
  }
  return out.sort();
}

const asReference = (content: string): string[] =>
  resultLines(content)
    .map((line) => line.replace(/^([^:]*):(\d+): /, "$1:$2:"))
    .sort();

test("grep: both backends give the same answer, and it is the reference's, on generated workspaces", async () => {
  let cases = 0;
  let refused = 0;
  await fc.assert(
    fc.asyncProperty(caseArb, async ({ spec, queries }) => {
      const { box, files } = writeTree(spec);
      let listed: string[] | null = null;
      // git's listing is the same for every query on this tree: asked once.
      const listing = (): string[] => {
        listed ??= gitListing(box.workspace);
        return listed;
      };
      const byPath = new Map(files.map((f) => [f.path, f.content]));
      const backends = [host(box, { useRipgrep: false, env })];
      if (hasRipgrep) backends.push(host(box, { useRipgrep: true, env }));
      for (const { pattern: index, scope } of queries) {
        const [pattern, matcher] = PATTERNS[index] as [string, (l: string) => boolean];
        const args = { pattern, ...scope };
        const answers = [];
        for (const tools of backends) answers.push(await run(tools, "grep", args));
        const [js, rg] = answers;
        assert.ok(js);
        const where = `grep ${JSON.stringify(args)} in ${JSON.stringify(spec)}`;
        if (rg) assert.equal(rg.content, js.content, `the backends disagree: ${where}`);
        cases += 1;
        if (js.isError) {
          // A path that does not exist (dropped by the tree writer), or nothing searchable: said so.
          if (js.code !== "not_found")
            assert.match(js.content, /^No file was searched.*Could not search/, where);
          refused += 1;
          continue;
        }
        const ours = js.content.startsWith("No ") ? [] : asReference(js.content);
        const isFile = scope.path !== undefined && byPath.has(scope.path);
        const content = isFile ? byPath.get(scope.path as string) : undefined;
        const binaryTarget = Buffer.isBuffer(content) && content.includes(0);
        if (spec.git && !isFile) {
          const notUtf8 = new Set(
            [...byPath].filter(([, c]) => Buffer.isBuffer(c) && !isUtf8(c)).map(([p]) => p),
          );
          assert.deepEqual(
            ours.filter((line) => !notUtf8.has(line.split(":")[0] ?? "")),
            referenceAnswer(box.workspace, listing(), matcher, scope),
            where,
          );
        }
        if (js.content.startsWith("No file was searched")) {
          // Said only when the rules keep no file there (an ignored directory named as path).
          const kept = spec.git ? listing() : hasRipgrep ? ripgrepListing(box.workspace) : [];
          const under = kept.filter(
            (p) => !scope.path || p === scope.path || p.startsWith(`${scope.path}/`),
          );
          assert.deepEqual(
            under
              .filter((p) => !scope.glob || globMatch(scope.glob, p))
              .filter((p) => !p.includes("\uFFFD") && !p.split("/").includes("node_modules")),
            [],
            where,
          );
          continue;
        }
        if (hasRipgrep && !binaryTarget) {
          const theirs = ripgrepAnswer(box.workspace, pattern, scope);
          if (theirs) assert.deepEqual(ours, theirs, `ripgrep's own answer differs: ${where}`);
        }
        if (spec.badName && !scope.path && !scope.glob && pattern === "needle")
          assert.match(js.content, /not valid UTF-8/, where);
      }
    }),
    { numRuns: RUNS, ...conformanceSeed() },
  );
  console.log(
    `grep conformance: ${cases} searches (${refused} on a missing path), ${RUNS} workspaces`,
  );
});

test("grep: a path naming a file, a stored result or an ignored file is searched, never 'No matches' by mistake", async () => {
  const { box } = writeTree({
    files: [
      { path: "big.txt", content: "one\ntwo needle\nthree\n" },
      { path: "e.py", content: "needle in an ignored file\n" },
    ],
    ignores: [{ dir: "", lines: ["*.py"] }],
    exclude: [],
    git: true,
    badName: false,
  });
  for (const useRipgrep of hasRipgrep ? [false, true] : [false]) {
    const tools = host(box, { useRipgrep, env });
    const file = await run(tools, "grep", { pattern: "needle", path: "big.txt" });
    assert.equal(file.content, "1 match in 1 file.\nbig.txt:2: two needle");
    const ignored = await run(tools, "grep", { pattern: "needle", path: "e.py" });
    assert.equal(ignored.content, "1 match in 1 file.\ne.py:1: needle in an ignored file");
    const none = await run(tools, "grep", { pattern: "absent", path: "big.txt" });
    assert.equal(none.content, "No matches for /absent/ in big.txt (1 file searched).");
  }
  // nex's advice after a large result: grep the stored copy by its `@results/…` name.
  writeFileSync(box.path("many.txt"), Array.from({ length: 400 }, (_, i) => `hit ${i}`).join("\n"));
  for (const useRipgrep of hasRipgrep ? [false, true] : [false]) {
    const tools = host(box, { useRipgrep, env, outputCap: 2048 });
    const big = await run(tools, "grep", { pattern: "hit" });
    const stored = /"(@results\/[^"]+)"/.exec(big.content)?.[1];
    assert.ok(stored, big.content);
    const again = await run(tools, "grep", { pattern: "hit 399$", path: stored });
    // Named as the model named it: a path it can read back.
    assert.equal(again.content, `1 match in 1 file.\n${stored}:401: many.txt:400: hit 399`);
  }
});

// nex runs on Node.js 22.12 and newer (`engines`). An API that is experimental on 22.12 prints an
// ExperimentalWarning on stderr, mid-frame in the chat, and one that is missing crashes at import:
// the sources must not use them. CI proves the whole package on 22.12 (`.ci/run`); this catches a
// new use early, with the file and line.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { test } from "node:test";

const src = resolve(import.meta.dirname, "..", "..", "src");

/** APIs experimental (they warn) or missing on Node.js 22.12, with what to use instead. */
const UNSAFE: { pattern: RegExp; instead: string }[] = [
  {
    pattern: /\bmatchesGlob\b[^;]*from\s+"node:path"|from\s+"node:path"[^;]*\bmatchesGlob\b/,
    instead: "matchesGlob from tools/files (minimatch)",
  },
  {
    pattern: /\b(glob|globSync)\b[^;]*from\s+"node:fs(\/promises)?"/,
    instead: "the file walk in tools/search",
  },
  { pattern: /"node:sqlite"/, instead: "a file format nex already reads" },
  { pattern: /\bRegExp\.escape\b/, instead: "an explicit escape (V8 13.6 is Node.js 24)" },
  { pattern: /\bError\.isError\b/, instead: "instanceof Error" },
  { pattern: /\bUint8Array\.fromBase64\b|\.toBase64\(/, instead: "Buffer.from(text, 'base64')" },
  { pattern: /\bmodule\.registerHooks\b|\bfindPackageJSON\b/, instead: "nothing: not on 22.12" },
];

function* files(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.tsx?$/.test(entry.name)) yield path;
  }
}

test("the sources use no API that is experimental or missing on the floor Node.js (22.12)", () => {
  const found: string[] = [];
  for (const file of files(src)) {
    const text = readFileSync(file, "utf8");
    for (const { pattern, instead } of UNSAFE) {
      const at = text.search(pattern);
      if (at >= 0) {
        const line = text.slice(0, at).split("\n").length;
        found.push(`${file.slice(src.length + 1)}:${line}: use ${instead}`);
      }
    }
  }
  assert.deepEqual(found, []);
});

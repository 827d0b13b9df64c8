// Qwen2.5-Coder 0.5B starts most tasks by calling a tool named after a word of the code (`Rectangle`,
// `get_user`, `count`: r12, r13), and told only "call list_dir" it invents the same tool again. The
// host answers where the word is, the definition first, from the files grep would search: never an
// ignored, private or outside file, and "complete" only when it read every text file it could.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { host, sandbox } from "./helpers.ts";

const signal = new AbortController().signal;

function files(root: string, entries: Record<string, string>): void {
  for (const [path, content] of Object.entries(entries)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
}

const where = (found: { sightings: { kind: string; path: string; line: number }[] }) =>
  found.sightings.map((s) => `${s.kind} ${s.path}:${s.line}`);

test("a word is found where it is defined before where it is mentioned, in Python, JavaScript, YAML and a file named after it", async () => {
  const box = sandbox();
  files(box.workspace, {
    "README.md": "Use Rectangle from shapes.\nget_user returns a user.\n",
    "app.py": "from shapes import Rectangle\nprint(Rectangle(1, 2).area())\n",
    "src/models/shapes.py": "import math\n\nclass Rectangle:\n    pass\n",
    "lib/users.js": "// get_user is slow\nexport async function get_user(id) {\n  return id;\n}\n",
    "config.yaml": "server:\n  cache: true\n  port: 80\n",
    "src/count.js": "module.exports = (xs) => xs.length;\n",
    "notRectangle.py": "RectangleX = 1\n",
    "a.js": "const shape = { area: 3 };\nshape.area = 4;\n",
    "src/lib/geometry/measure.py": "def area(w, h):\n    return w * h\n",
  });
  const tools = host(box);
  assert.deepEqual(where(await tools.whereNamed("Rectangle", 3, signal)), [
    "definition src/models/shapes.py:3",
    "mention app.py:1",
    "mention README.md:1",
  ]);
  const found = await tools.whereNamed("Rectangle", 3, signal);
  assert.equal(found.sightings[0]?.text, "class Rectangle:");
  assert.deepEqual(where(await tools.whereNamed("get_user", 1, signal)), [
    "definition lib/users.js:2",
  ]);
  assert.deepEqual(where(await tools.whereNamed("cache", 3, signal)), ["definition config.yaml:2"]);
  assert.deepEqual(where(await tools.whereNamed("count", 3, signal)), ["file src/count.js:0"]);
  // A declaration over a key of the same name met first (`whereNamed: ...` in an object literal).
  assert.deepEqual(where(await tools.whereNamed("area", 1, signal)), [
    "definition src/lib/geometry/measure.py:1",
  ]);
  const none = await tools.whereNamed("Stack", 3, signal);
  assert.deepEqual(none, { sightings: [], complete: true });
});

test("a word in ignored files, nex's own data, a binary file or behind a symlink out of the workspace is not found", async () => {
  const box = sandbox();
  files(box.root, { "outside/secret.py": "class Secret:\n    pass\n" });
  files(box.workspace, {
    ".gitignore": "build/\n",
    "build/gen.py": "class Generated:\n    pass\n",
    "node_modules/pkg/index.js": "function Generated() {}\n",
    ".nex-data/journal.txt": "class Generated:\n",
    "blob.bin": "class Generated:\u0000\n",
    "main.py": "print(1)\n",
  });
  symlinkSync(join(box.root, "outside", "secret.py"), join(box.workspace, "secret.py"));
  symlinkSync(join(box.root, "outside"), join(box.workspace, "linked"));
  execFileSync("git", ["init", "-q"], { cwd: box.workspace });
  const tools = host(box, { privatePaths: [join(box.workspace, ".nex-data")] });
  assert.deepEqual(await tools.whereNamed("Generated", 3, signal), {
    sightings: [],
    complete: true,
  });
  assert.deepEqual((await tools.whereNamed("Secret", 3, signal)).sightings, []);
  // Not an identifier: nothing is looked for, and nothing is claimed.
  assert.deepEqual(await tools.whereNamed("../outside", 3, signal), {
    sightings: [],
    complete: false,
  });
});

test("the look stops at its budget and then does not claim that the word is nowhere", async () => {
  const box = sandbox();
  // Files larger than the look reads whole: the word may be in them, so nothing found is not "none".
  files(box.workspace, { "big.txt": `${"x".repeat(600 * 1024)}\nneedle\n`, "a.py": "b = 1\n" });
  const tools = host(box);
  assert.deepEqual(await tools.whereNamed("needle", 3, signal), {
    sightings: [],
    complete: false,
  });
  const aborted = AbortSignal.abort();
  await assert.rejects(tools.whereNamed("b", 3, aborted));
});

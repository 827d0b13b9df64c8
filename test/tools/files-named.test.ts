// r12 add-test-js: the model invented a tool named `clamp.test.js`, was told to read `clamp.test.js`,
// and read a path that was not there (the file was test/clamp.test.js). The host answers which files
// a name may mean, as glob would list them: never an ignored, private or outside file.
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

test("a file name is found at its path, else by its base name where glob would list it, the whole name's match and the shallowest first, at most the limit", async () => {
  const box = sandbox();
  files(box.workspace, {
    ".gitignore": "build/\n",
    "test/clamp.test.js": "test\n",
    "src/lib/deep/clamp.test.js": "deep\n",
    "pkg/test/clamp.test.js": "pkg\n",
    "build/clamp.test.js": "ignored\n",
    "node_modules/clamp/clamp.test.js": "skipped\n",
    "README.md": "readme\n",
  });
  execFileSync("git", ["init", "-q"], { cwd: box.workspace });
  const tools = host(box);
  assert.deepEqual(await tools.filesNamed("test/clamp.test.js", 4, signal), ["test/clamp.test.js"]);
  assert.deepEqual(await tools.filesNamed("./README.md", 4, signal), ["README.md"]);
  assert.deepEqual(await tools.filesNamed("clamp.test.js", 4, signal), [
    "test/clamp.test.js",
    "pkg/test/clamp.test.js",
    "src/lib/deep/clamp.test.js",
  ]);
  // A path that is not there: the same base name elsewhere, the whole name's ending first.
  assert.deepEqual(await tools.filesNamed("deep/clamp.test.js", 2, signal), [
    "src/lib/deep/clamp.test.js",
    "test/clamp.test.js",
  ]);
  assert.deepEqual(await tools.filesNamed("stats.py", 4, signal), []);
});

test("a file name never reaches outside the workspace, through a symlink or a climbing path, nor into nex's own data", async () => {
  const box = sandbox();
  files(box.root, { "outside/secret.txt": "no\n" });
  files(box.workspace, { "notes.txt": "yes\n", ".nex-data/journal.txt": "private\n" });
  symlinkSync(join(box.root, "outside", "secret.txt"), join(box.workspace, "link.txt"));
  const tools = host(box, { privatePaths: [join(box.workspace, ".nex-data")] });
  assert.deepEqual(await tools.filesNamed("link.txt", 4, signal), []);
  assert.deepEqual(await tools.filesNamed("../outside/secret.txt", 4, signal), []);
  assert.deepEqual(await tools.filesNamed(join(box.root, "outside", "secret.txt"), 4, signal), []);
  assert.deepEqual(await tools.filesNamed("journal.txt", 4, signal), []);
  assert.deepEqual(await tools.filesNamed(".nex-data/journal.txt", 4, signal), []);
  assert.deepEqual(await tools.filesNamed(join(box.workspace, "notes.txt"), 4, signal), [
    "notes.txt",
  ]);
});

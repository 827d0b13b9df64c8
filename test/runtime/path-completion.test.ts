import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { completePath } from "../../src/runtime/session/input/path-completion.ts";
import { scratchDir } from "../support/scratch-dir.ts";

test("@ completion lists workspace entries only: nothing above it or through a link that leads out, no .git, hidden ones when asked", () => {
  const root = scratchDir("nex-complete-");
  const ws = join(root, "ws");
  mkdirSync(join(ws, "src"), { recursive: true });
  mkdirSync(join(ws, ".git"));
  mkdirSync(join(root, "outside"));
  writeFileSync(join(root, "outside", "secret.txt"), "x");
  writeFileSync(join(ws, "src", "app.ts"), "");
  writeFileSync(join(ws, ".env"), "");
  symlinkSync(join(root, "outside"), join(ws, "out"));
  assert.deepEqual(completePath(ws, ""), ["out/", "src/"]);
  assert.deepEqual(completePath(ws, "src/a"), ["src/app.ts"]);
  assert.deepEqual(completePath(ws, "."), [".env"]);
  assert.deepEqual(completePath(ws, "../"), []);
  assert.deepEqual(completePath(ws, "out/"), [], "a link out of the workspace lists nothing");
  assert.deepEqual(completePath(ws, "/etc/"), []);
});

// The rule an approval saves for a project goes into the user's config file without disturbing it:
// other settings and the mode are kept, and a config kept as a link stays a link.
import assert from "node:assert/strict";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { saveProjectRules } from "../../src/runtime/config/saved-approvals.ts";
import { scratchDir } from "../support/scratch-dir.ts";

test("a config that is a link (dotfiles in a repository) is written where it leads; the link, the mode and the other settings stay", async () => {
  const root = scratchDir("nex-saved-");
  mkdirSync(join(root, "dotfiles"));
  mkdirSync(join(root, "config"));
  const real = join(root, "dotfiles", "nex.json");
  writeFileSync(real, '{\n    "permissionMode": "ask"\n}\n');
  // Set, not asked of the write: a creation mode passes through the machine's umask.
  chmodSync(real, 0o640);
  const link = join(root, "config", "config.json");
  symlinkSync(real, link);
  assert.deepEqual(await saveProjectRules(link, "/work/app", ["npm test"]), ["npm test"]);
  assert.ok(lstatSync(link).isSymbolicLink(), "the link is still a link");
  assert.equal(statSync(real).mode & 0o777, 0o640);
  const saved = JSON.parse(readFileSync(real, "utf8"));
  assert.equal(saved.permissionMode, "ask");
  assert.deepEqual(saved.projects["/work/app"].commands.allow, ["npm test"]);
  assert.match(readFileSync(real, "utf8"), /^\{\n {4}"/, "its four-space indentation kept");
  assert.deepEqual(await saveProjectRules(link, "/work/app", ["npm test"]), [], "saved once");
});

test("a config that is not JSON is left byte for byte, with the reason", async () => {
  const root = scratchDir("nex-saved-");
  const path = join(root, "config.json");
  writeFileSync(path, "{ broken");
  await assert.rejects(saveProjectRules(path, "/work/app", ["npm test"]), /not valid JSON/);
  assert.equal(readFileSync(path, "utf8"), "{ broken");
});

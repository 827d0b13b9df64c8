// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the scripts here write ${VAR} as shells do
// What an approval covers: every workspace file the approved command executes, found the ways
// scripts name each other.
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { approvedCode } from "../../src/runtime/consent/approved-code.ts";
import { scratchDir } from "../support/scratch-dir.ts";

function workspace(files: Record<string, string>): string {
  const root = scratchDir("nex-approved-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const paths = (command: string, root: string) => approvedCode([command], root).map(([p]) => p);

test("a named script's folder, what it sources (by $0's folder or a variable), and a runner's manifest", () => {
  const root = workspace({
    "check.sh": '. "$(dirname "$0")/lib/a.sh"\nsource ${DIR}/lib/b.sh\n',
    "lib/a.sh": "echo a\n",
    "lib/b.sh": ". ./lib/c.sh\n",
    "lib/c.sh": "echo c\n",
    ".claude/hooks/p.sh": "echo p\n",
    ".claude/hooks/helper.py": "print(1)\n",
    "package.json": '{"scripts":{"lint":"eslint ."}}',
    "src/unrelated.ts": "",
  });
  assert.deepEqual(paths("bash check.sh", root), ["check.sh", "lib/a.sh", "lib/b.sh", "lib/c.sh"]);
  assert.deepEqual(paths('sh "$CLAUDE_PROJECT_DIR"/.claude/hooks/p.sh', root), [
    ".claude/hooks/helper.py",
    ".claude/hooks/p.sh",
  ]);
  assert.deepEqual(paths("npm run lint", root), ["package.json"]);
  assert.deepEqual(paths("echo hi", root), []);
});

test("a change to a sourced file changes the digest", () => {
  const root = workspace({ "h/check.sh": ". h/lib.sh\n", "h/lib.sh": "v1\n" });
  const before = approvedCode(["bash h/check.sh"], root);
  writeFileSync(join(root, "h/lib.sh"), "v2\n");
  assert.notDeepEqual(approvedCode(["bash h/check.sh"], root), before);
});

test("a script the command names that is missing now is part of the approval: creating it changes the digest", () => {
  const root = workspace({ "README.md": "" });
  const before = approvedCode(["bash gen/check.sh --fast"], root);
  assert.deepEqual(before, [["gen/check.sh", "missing"]]);
  mkdirSync(join(root, "gen"));
  writeFileSync(join(root, "gen/check.sh"), "echo new\n");
  assert.notDeepEqual(approvedCode(["bash gen/check.sh --fast"], root), before);
});

test("a workspace link that leads out of it is approved with what it leads to", () => {
  const root = workspace({ "hooks/check.sh": ". hooks/lib.sh\n" });
  const elsewhere = scratchDir("nex-approved-target-");
  writeFileSync(join(elsewhere, "lib.sh"), "v1\n");
  symlinkSync(join(elsewhere, "lib.sh"), join(root, "hooks/lib.sh"));
  const before = approvedCode(["bash hooks/check.sh"], root);
  assert.ok(
    before.some(([path]) => path.startsWith("hooks/lib.sh (a link to")),
    String(before),
  );
  writeFileSync(join(elsewhere, "lib.sh"), "v2\n");
  assert.notDeepEqual(approvedCode(["bash hooks/check.sh"], root), before);
});

// Read-only commands run without a question in ask mode; anything that may write, run code or read
// outside the workspace still asks. Judged through the real permission check and shell parser.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolInvocation } from "../../src/protocol/index.ts";
import { host, sandbox } from "./helpers.ts";

let n = 0;
const bash = (command: string): ToolInvocation => ({
  id: `c${++n}`,
  name: "bash",
  args: { command },
  turn: 1,
});

const READ_ONLY = [
  "git status",
  "git status --short",
  "git diff HEAD~1 -- src",
  "git log --oneline -5",
  "git show HEAD",
  "ls -la src",
  "cat a.txt | head -5",
  "grep -rn foo .",
  "rg -n 'foo bar' src",
  'find . -name "*.ts" -type f',
  "pwd",
  "echo hi",
  "wc -l a.txt b.txt",
  "cd src && ls",
];

const ASKS = [
  "find . -delete",
  "find . -name x -exec rm {} \\;",
  "git -c core.pager=sh log",
  "git diff --output=patch.txt",
  "git diff --ext-diff",
  "git branch new-branch",
  "cat /etc/passwd",
  "cat ~/.ssh/id_rsa",
  "cat $HOME/.ssh/id_rsa",
  "cat ../outside.txt",
  "echo hi > f.txt",
  "ls && rm a.txt",
  "rg --pre sh foo",
  "sort -o out.txt a.txt",
  "./ls",
  "npm test",
  "ls $(rm -rf x)",
  "sed -n 1p a.txt",
  "file -C -m magic",
];

test("read-only commands do not ask in ask mode", async () => {
  const tools = host(sandbox(), { mode: "ask" });
  for (const command of READ_ONLY) {
    assert.deepEqual(await tools.permission(bash(command)), { type: "allow" }, command);
  }
});

test("commands that may write, run code or read outside the workspace still ask", async () => {
  const tools = host(sandbox(), { mode: "ask" });
  for (const command of ASKS) {
    assert.equal((await tools.permission(bash(command))).type, "ask", command);
  }
});

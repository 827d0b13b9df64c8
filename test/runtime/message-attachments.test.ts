// What a chat message's attachments give the model, called as `nex --chat` calls it, on real files:
// nex's own data inside the workspace (`--data-dir workspace`) is not read, nor is a FIFO (which
// would block a read), and a file in a held chat folder is read through the chat folder's guard.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { resolveConfig } from "../../src/runtime/config/index.ts";
import { readMessageAttachments } from "../../src/runtime/extensions/index.ts";
import { scratchDir } from "../support/scratch-dir.ts";

test("chat attachments: nex's own data in the workspace and a FIFO are refused, a held chat folder's file is read", async () => {
  const base = scratchDir("nex-attach-");
  const workspace = join(base, "ws");
  const chatDir = join(workspace, ".wg", "chat", "c1");
  mkdirSync(chatDir, { recursive: true });
  const env = { HOME: base, XDG_CONFIG_HOME: join(base, "config"), PATH: process.env.PATH ?? "" };
  const config = resolveConfig({ dataDir: "workspace" }, env, workspace);
  mkdirSync(join(config.dataDir, "sessions"), { recursive: true });
  writeFileSync(join(config.dataDir, "sessions", "s.jsonl"), "JOURNAL-TEXT\n");
  writeFileSync(join(chatDir, "paste.txt"), "PASTED-TEXT\n");
  execFileSync("mkfifo", [join(workspace, "pipe")]);
  const given = await readMessageAttachments(
    [
      { path: `${config.dataDir.slice(workspace.length + 1)}/sessions/s.jsonl` },
      { path: "pipe" },
      { path: ".wg/chat/c1/paste.txt" },
    ],
    { config, env, chatDir, model: "stub-model", window: 32_768 },
  );
  assert.doesNotMatch(given.text, /JOURNAL-TEXT/);
  assert.match(given.text, /PASTED-TEXT/);
  assert.equal(given.refused.length, 2, given.refused.join("\n"));
  assert.match(given.refused[0] ?? "", /s\.jsonl: it was not read: .*nex/);
  assert.match(given.refused[1] ?? "", /pipe: it was not read: .*(FIFO|pipe|not a regular file)/);
});

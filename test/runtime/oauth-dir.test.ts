// OAuth tokens act as the user: where a repository could ship a data folder, they are kept in the
// user's config folder instead, so tokens the repository shipped are never used.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { oauthDirOf } from "../../src/runtime/mcp/oauth-dir.ts";
import { scratchDir } from "../support/scratch-dir.ts";

test("tokens stay beside the journals outside the workspace, and move to the config folder when the data folder is inside it", () => {
  const base = scratchDir("nex-oauth-");
  const workspace = join(base, "ws");
  mkdirSync(workspace);
  const env = { HOME: base, XDG_CONFIG_HOME: join(base, "config") };
  const outside = { dataDir: join(base, "data"), workspace, sandbox: {} };
  assert.equal(oauthDirOf(outside, env), join(base, "data", "mcp-oauth"));
  const inside = { dataDir: join(workspace, ".nex"), workspace, sandbox: {} };
  assert.equal(oauthDirOf(inside, env), join(base, "config", "nex", "mcp-oauth"));
  const writable = {
    dataDir: join(base, "shared"),
    workspace,
    sandbox: { writable: [join(base, "shared")] },
  };
  assert.equal(oauthDirOf(writable, env), join(base, "config", "nex", "mcp-oauth"));
});

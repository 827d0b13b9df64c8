// `.env*` files above the workspace, when the workspace sits in a folder bubblewrap replaces with its
// own (a workspace under /tmp): that folder is not listed before every command (it is often the
// busiest of the machine), and its files stay out of a command's sight, through real bubblewrap.
import assert from "node:assert/strict";
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { buildPolicy } from "../../src/tools/sandbox/build-policy.ts";
import { sandboxMissing } from "../support/bwrap.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { host, run } from "./helpers.ts";

const made: string[] = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

// The folder the sandbox makes private is /tmp itself, wherever the system's temp folder points.
const privateTmp = existsSync("/tmp") && realpathSync("/tmp") === "/tmp";

/** A workspace two folders down in /tmp, with a secret `.env.local` beside it. */
function workspaceInTmp() {
  const root = scratchDir("nex-env-above-", "/tmp");
  made.push(root);
  const workspace = join(root, "ws");
  mkdirSync(workspace);
  writeFileSync(join(root, ".env.local"), "TOKEN=leaked-secret\n");
  writeFileSync(join(root, "notes.txt"), "beside the workspace\n");
  return { root, workspace, checkpointDir: join(root, "data", "checkpoints", "s1") };
}

const confined = { mode: "workspace-write" as const, network: false };
const skip = sandboxMissing() ?? (privateTmp ? false : "/tmp is not a folder of its own here");
const show = 'cat ../.env.local; echo "---"; ls -a ..; cat ../notes.txt';

describe(".env files above a workspace in a private temp folder", () => {
  test("are not listed for bubblewrap (its /tmp hides them), but still are for Seatbelt", {
    skip: privateTmp ? false : "/tmp is not a folder of its own here",
  }, () => {
    const box = workspaceInTmp();
    const secret = join(box.root, ".env.local");
    assert.ok(
      !buildPolicy(box.workspace, confined, undefined, "bwrap").hiddenFiles.includes(secret),
    );
    assert.ok(
      buildPolicy(box.workspace, confined, undefined, "seatbelt").hiddenFiles.includes(secret),
    );
  });

  test("stay unreadable to a command", { skip }, async () => {
    const box = workspaceInTmp();
    const tools = host(
      { ...box, path: (relative) => join(box.workspace, relative) },
      { mode: "approve_all", sandbox: confined },
    );
    const result = await run(tools, "bash", { command: show });
    assert.doesNotMatch(result.content, /leaked-secret/);
    assert.match(
      result.content,
      /---\n\.\n\.\.\nws\n/,
      "the folder shows nothing but the workspace",
    );
  });

  test("made writable (so in sight), the folder's .env files are listed and hidden, its other files readable", {
    skip,
  }, async () => {
    const box = workspaceInTmp();
    const settings = { ...confined, writable: [box.root] };
    assert.ok(
      buildPolicy(box.workspace, settings, undefined, "bwrap").hiddenFiles.includes(
        join(box.root, ".env.local"),
      ),
    );
    const tools = host(
      { ...box, path: (relative) => join(box.workspace, relative) },
      { mode: "approve_all", sandbox: settings },
    );
    const result = await run(tools, "bash", { command: show });
    assert.match(result.content, /beside the workspace/, result.content);
    assert.doesNotMatch(result.content, /leaked-secret/);
  });
});

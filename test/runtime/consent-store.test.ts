// The consent store: keyed by the workspace's real path and the approved hash; never read from, or
// written to, a place the workspace holds; never written over when it cannot be read.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  consentPlace,
  hasConsent,
  recordConsent,
} from "../../src/runtime/consent/consent-store.ts";
import { scratchDir } from "../support/scratch-dir.ts";

function home() {
  const base = realpathSync(scratchDir("nex-consent-"));
  const workspace = join(base, "project");
  mkdirSync(workspace);
  symlinkSync(workspace, join(base, "link"));
  return { base, workspace, env: { HOME: base, XDG_CONFIG_HOME: join(base, "config") } };
}

test("an approval holds for the workspace by its real path and for that hash only", () => {
  const { base, workspace, env } = home();
  recordConsent(consentPlace({ env, workspace: join(base, "link") }), "hooks", "h1");
  const here = consentPlace({ env, workspace });
  assert.ok(
    hasConsent(here, "hooks", "h1"),
    "the same folder through a link is the same workspace",
  );
  assert.ok(!hasConsent(here, "hooks", "h2"), "another hash is not approved");
  assert.ok(!hasConsent(here, "mcp", "h1"), "another subject is not approved");
  mkdirSync(join(base, "other"));
  assert.ok(!hasConsent(consentPlace({ env, workspace: join(base, "other") }), "hooks", "h1"));
});

test("a store inside the workspace is refused; a store that cannot be read is never written over", () => {
  const { base, workspace, env } = home();
  const inside = consentPlace({
    env: { ...env, XDG_CONFIG_HOME: join(workspace, ".config") },
    workspace,
  });
  assert.match(inside.refused ?? "", /inside the workspace/);
  assert.throws(() => recordConsent(inside, "hooks", "h"), /XDG_CONFIG_HOME/);
  const place = consentPlace({ env, workspace });
  mkdirSync(join(base, "config", "nex"), { recursive: true });
  writeFileSync(place.file, "{ not json");
  assert.throws(() => recordConsent(place, "hooks", "h"), /not valid JSON/);
  assert.equal(readFileSync(place.file, "utf8"), "{ not json");
  assert.ok(!hasConsent(place, "hooks", "h"));
});

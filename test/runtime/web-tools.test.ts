// The web tools under the tool host's permission rules: a fetch asks in ask mode and runs on --yes;
// a private address asks even on --yes (refused with no one to ask), a yes lets that one call through,
// and a session-wide yes for web_fetch never covers a private address.
import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import type { NexConfig } from "../../src/runtime/config/config.ts";
import { webTools } from "../../src/runtime/web/web-tools.ts";
import { createToolHost } from "../../src/tools/index.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { ADMIN_SECRET, webPages } from "../support/web-pages.ts";

function host(mode: "ask" | "approve_all", unattended = false) {
  const dir = scratchDir("nex-web-tools-");
  return createToolHost({
    workspace: dir,
    mode,
    unattended,
    checkpointDir: join(dir, ".checkpoints"),
    extraTools: webTools({
      config: { web: {}, proxy: null } as unknown as NexConfig,
      env: {},
      summarize: async () => "summary",
      window: () => 32_768,
    }),
  });
}

let id = 0;
const call = (url: string) => ({ id: `c${++id}`, name: "web_fetch", args: { url }, turn: 1 });
// A public address: the check needs no network (an IP literal is not resolved).
const PUBLIC = "http://93.184.216.34/docs?token=SECRET-1";

test("a public fetch asks in ask mode, showing the URL with its key redacted, and runs on --yes", async () => {
  const asking = await host("ask").permission(call(PUBLIC));
  assert.deepEqual(asking, {
    type: "ask",
    summary: "web_fetch http://93.184.216.34/docs?token=[redacted]",
  });
  assert.deepEqual(await host("approve_all").permission(call(PUBLIC)), { type: "allow" });
});

test("a private address asks even on --yes, and with no one to ask it is refused naming the setting", async () => {
  const pages = await webPages();
  const url = `${pages.url}/secret`;
  const check = await host("approve_all").permission(call(url));
  assert.equal(check.type, "ask");
  assert.match(
    check.type === "ask" ? check.summary : "",
    /⚠ 127\.0\.0\.1:\d+ is a loopback address/,
  );
  const headless = await host("approve_all", true).permission(call(url));
  assert.equal(headless.type, "deny");
  assert.match(headless.type === "deny" ? headless.reason : "", /allowPrivateHosts/);
});

test("a yes after the warning lets that one call through; without it the same call is refused", async () => {
  const pages = await webPages();
  const tools = host("ask");
  const url = `${pages.url}/secret`;
  const unasked = await tools.execute(call(url), AbortSignal.timeout(30_000));
  assert.equal(unasked.isError, true);
  assert.match(unasked.content, /loopback address/);
  const approved = call(url);
  assert.equal((await tools.permission(approved)).type, "ask");
  const outcome = await tools.execute(approved, AbortSignal.timeout(30_000));
  assert.equal(outcome.isError, false, outcome.content);
  assert.ok(outcome.content.includes(ADMIN_SECRET));
  // A session-wide yes for web_fetch covers public pages, never a private one.
  tools.rememberApproval(call(PUBLIC));
  assert.deepEqual(await tools.permission(call(PUBLIC)), { type: "allow" });
  assert.equal((await tools.permission(call(url))).type, "ask");
});

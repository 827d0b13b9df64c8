// A permission answer counts only for a call that was asked about: a stray or late answer (an editor
// answering after a cancel, a client naming a call id it guessed) never approves a later call.
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { openSession } from "../../src/runtime/assembly/open-session.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";

test("an answer for a call nobody asked about does not approve that call when it comes", async () => {
  const stub = await startStubEndpoint({
    scripts: [
      openaiToolCall({ name: "bash", args: { command: "touch pwned" }, id: "call_1" }),
      openaiText("done"),
    ],
  });
  const base = scratchDir("nex-runtime-");
  const workspace = mkdtempSync(join(base, "ws-"));
  const { session } = await openSession(
    { model: "m", baseUrl: `${stub.url}/v1`, dataDir: join(base, "data"), sandbox: "off" },
    { HOME: base },
    workspace,
    { resume: null, approvals: "interactive" },
  );
  const asked: string[] = [];
  session.subscribe((event) => {
    if (event.type !== "permission_requested") return;
    asked.push(event.callId);
    // The user says no, a moment after the question shows.
    setTimeout(
      () => session.answerPermission(event.callId, { type: "deny", reason: "the user said no" }),
      50,
    );
  });
  // A stray yes for a call id nobody asked about yet.
  session.answerPermission("call_1", { type: "allow_once" });
  const end = await session.submit("go");
  await session.close();
  await stub.close();
  assert.equal(end.type, "done");
  assert.deepEqual(asked, ["call_1"], "the user was asked");
  assert.ok(!existsSync(join(workspace, "pwned")), "the stray yes ran the command");
});

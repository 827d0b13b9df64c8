// A secret in a URL the model streams (a token in the query, a password in the user part) is
// redacted in every event and every output format, streamed fragments included: `--json`,
// stream-json with partial messages, Claude Code's json, the text output, and the session's files.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { startAcp } from "../acp/acp-client.ts";
import { makeSandbox, runNex } from "../support/cli.ts";
import { openaiText, openaiToolCall, startStubEndpoint } from "../support/stub-endpoint.ts";

const TOKEN = "tok_9f8e7d6c5b4a3928";
const PASSWORD = "hunter2-Secret9";
const URL_WITH_SECRETS = `https://bob:${PASSWORD}@example.org/items?page=2&access_token=${TOKEN}`;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

/** The model's two turns: a call whose arguments and text carry the URL, then an answer naming it. */
function scripts() {
  return [
    // Small fragments: the secrets are cut across many tool_call_delta and text_delta events.
    openaiToolCall({
      name: "bash",
      args: { command: `echo '${URL_WITH_SECRETS}'` },
      chunkSize: 5,
      text: `Fetching ${URL_WITH_SECRETS} now. `,
    }),
    openaiText(`Done with ${URL_WITH_SECRETS} here.`, { chunkSize: 3 }),
  ];
}

function dataFiles(dataDir: string): [string, string][] {
  return filesUnder(dataDir).map((file) => [file, readFileSync(file, "latin1")]);
}

function assertNoSecrets(outputs: [string, string][]): void {
  for (const [where, text] of outputs) {
    assert.ok(!text.includes(TOKEN), `the token went out in ${where}`);
    assert.ok(!text.includes(PASSWORD), `the password went out in ${where}`);
  }
}

for (const format of ["json-events", "stream-json", "json", "text"])
  test(`a token and a password in a streamed URL never leave nex in clear (--output-format ${format}, and the journal)`, {
    timeout: 120_000,
  }, async () => {
    const box = makeSandbox();
    const stub = await startStubEndpoint({ scripts: scripts() });
    const partial = format === "stream-json" ? ["--include-partial-messages", "--verbose"] : [];
    const result = await runNex(
      [
        "run",
        "--yes",
        "--model",
        "stub-model",
        "--base-url",
        `${stub.url}/v1`,
        "--data-dir",
        box.dataDir,
        "--output-format",
        format,
        ...partial,
        "go",
      ],
      { cwd: box.workspace, env: box.env },
    );
    await stub.close();
    assert.equal(result.code, 0, result.stderr);
    assert.ok(result.stdout.length > 0);
    assertNoSecrets([
      ["stdout", result.stdout],
      ["stderr", result.stderr],
      ...dataFiles(box.dataDir),
    ]);
    if (format === "json-events")
      assert.match(
        result.stdout,
        /"tool_call_delta"/,
        "the streamed fragments were there to check",
      );
  });

test("a token and a password in a streamed URL never reach the editor over ACP, nor the journal", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const stub = await startStubEndpoint({ scripts: scripts() });
  const run = startAcp({
    cwd: box.workspace,
    env: box.env,
    args: ["--model", "stub-model", "--base-url", `${stub.url}/v1`, "--data-dir", box.dataDir],
    answer: () => ({ outcome: { outcome: "selected", optionId: "allow_once" } }),
  });
  try {
    await run.agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await run.agent.request("session/new", {
      cwd: box.workspace,
      mcpServers: [],
    });
    const answer = await run.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    assert.equal(answer.stopReason, "end_turn");
    const seen = JSON.stringify([run.updates, run.permissions]);
    assert.match(seen, /example\.org/, "the URL itself was shown");
    assertNoSecrets([["ACP updates", seen], ["stderr", run.stderr()], ...dataFiles(box.dataDir)]);
  } finally {
    await run.close();
    await stub.close();
  }
});

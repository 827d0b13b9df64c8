// The real `nex chat` in a real pseudo-terminal, against the stub endpoint speaking the OpenAI wire format.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createJournal } from "../../src/session/index.ts";
import { sandboxMissing } from "../support/bwrap.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { requestsBeforeNextPrompt, startNexTui } from "./cli-harness.ts";
import { cliScenarios } from "./cli-scenarios.ts";
import { saveScreen } from "./tui-harness.ts";

function flat(screen: string): string {
  return screen.replace(/[│\n]/g, " ").replace(/\s+/g, " ");
}

test("nex chat: a turn that writes a file shows the diff and the bytes on disk", async (t) => {
  const { nex, screen } = await cliScenarios.write();
  t.after(() => nex.close());
  t.diagnostic(`final screen (${saveScreen(nex.dir, "write", screen)}):\n${screen}`);
  assert.equal(
    readFileSync(join(nex.workspace, "hello.txt"), "utf8"),
    "Hello, world!\nSecond line.\n",
  );
  assert.match(screen, /● write_file hello\.txt/);
  assert.match(screen, /created: 27 bytes, 2 lines on disk/);
  assert.match(screen, /\+Hello, world!/);
  assert.equal(nex.chatRequests().length, 2);
});

test("nex chat: a 400 storm shows the error in full, the spinner is gone, one request was sent", async (t) => {
  const { nex, screen } = await cliScenarios.storm400();
  t.after(() => nex.close());
  t.diagnostic(`final screen (${saveScreen(nex.dir, "storm400", screen)}):\n${screen}`);
  assert.match(
    flat(screen),
    /maximum context length is 32768 tokens\. However, you requested 250112 tokens\./,
  );
  assert.equal((await requestsBeforeNextPrompt(nex)).length, 1, "a 400 is never sent again");
});

test("nex chat: a 429 shows the countdown, then the answer", async (t) => {
  const { nex, screen } = await cliScenarios.retry429();
  t.after(() => nex.close());
  t.diagnostic(`final screen (${saveScreen(nex.dir, "retry429", screen)}):\n${screen}`);
  assert.match(screen, /Recovered after the rate limit\./);
  assert.equal(nex.chatRequests().length, 2);
});

test("nex chat: Ctrl-C during a stream clears the spinner, sends nothing more", async (t) => {
  const { nex, screen } = await cliScenarios.interrupt();
  t.after(() => nex.close());
  t.diagnostic(`final screen (${saveScreen(nex.dir, "interrupt", screen)}):\n${screen}`);
  // The interrupt does not exit nex: it takes the next prompt.
  const before = await requestsBeforeNextPrompt(nex);
  assert.equal(before.length, 1, "no request after the interrupt");
});

test("nex chat: a permission prompt denied leaves the file untouched, tells the model why", async (t) => {
  const { nex, screen } = await cliScenarios.permissionDenied();
  t.after(() => nex.close());
  t.diagnostic(`final screen (${saveScreen(nex.dir, "permission", screen)}):\n${screen}`);
  assert.equal(readFileSync(join(nex.workspace, "keep.txt"), "utf8"), "original\n");
  assert.match(screen, /denied — nothing was run or written/);
  assert.match(
    nex.chatRequests()[1]?.rawBody ?? "",
    /keep my file/,
    "the model is told the reason",
  );
});

test("nex chat: a command undo could not repair asks with a warning that says why", async (t) => {
  const { nex, screen } = await cliScenarios.hazardWarning();
  t.after(() => nex.close());
  t.diagnostic(`permission prompt (${saveScreen(nex.dir, "hazard", screen)}):\n${screen}`);
  assert.match(
    flat(screen),
    /⚠ `rm -rf \.\.\/notes` deletes .*notes, outside the workspace, which undo cannot restore/,
  );
  assert.equal(readFileSync(join(nex.workspace, "..", "notes", "ideas.md"), "utf8"), "my ideas\n");
});

test("nex chat --last resumes a session, shows where it left off and how it was fitted", async (t) => {
  const nex = await startNexTui([openaiText("Picking up again.")], {
    args: ["--last"],
    seed: async ({ workspace, dataDir }) => {
      const journal = await createJournal(dataDir, {
        workspace,
        provider: "openai",
        model: "m",
        baseUrl: "http://127.0.0.1:1/v1",
      });
      journal.appendMessage({ type: "user", text: "Which port does the server use?" });
      journal.appendMessage({ type: "assistant", text: "It listens on port 8080.", toolCalls: [] });
      journal.close();
    },
  });
  t.after(() => nex.close());
  const screen = await nex.pty.waitFor(/Journal has 2 messages/);
  t.diagnostic(`screen:\n${screen}`);
  assert.match(screen, /Which port does the server use\?/);
  assert.match(screen, /It listens on port 8080\./);
});

test("nex chat says in its status bar whether commands are sandboxed, loudly when they are not", async (t) => {
  const confined = await startNexTui([]);
  t.after(() => confined.close());
  // Without bubblewrap (a developer machine; CI always has it) the same bar says so in red.
  assert.match(confined.pty.screen(), sandboxMissing() ? /⏵ ask NO SANDBOX/ : /⏵ ask ⛨/);
  const off = await startNexTui([], { args: ["--sandbox", "off"] });
  t.after(() => off.close());
  assert.match(off.pty.screen(), /⏵ ask UNSANDBOXED/);
});

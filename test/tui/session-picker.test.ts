// The session picker, in the real chat in a real pseudo-terminal: `nex resume` with no id opens it,
// each session shown by its first prompt; `/resume` opens it inside the chat and switches in place.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { test } from "node:test";
import { makeSandbox, runNex } from "../support/cli.ts";
import { keys, spawnPty } from "../support/pty.ts";
import { openaiText, startStubEndpoint } from "../support/stub-endpoint.ts";
import { saveCapture } from "./save-capture.ts";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");

test("nex resume with no id opens the picker; /resume switches sessions in place", async (t) => {
  const box = makeSandbox();
  const stub = await startStubEndpoint({ handler: () => openaiText("Done.") });
  t.after(() => stub.close());
  const endpoint = ["--base-url", `${stub.url}/v1`, "--model", "m"];
  for (const prompt of ["fix the parser", "write the docs"]) {
    const run = await runNex(["run", ...endpoint, prompt], { cwd: box.workspace, env: box.env });
    assert.equal(run.code, 0, run.stderr);
  }
  const pty = spawnPty(process.execPath, [nexBin, "resume", ...endpoint], {
    cols: 100,
    rows: 30,
    cwd: box.workspace,
    env: { ...box.env, TERM: "xterm-256color", OPENAI_API_KEY: "test" },
  });
  t.after(() => pty.kill());
  const picker = await pty.waitFor("Resume a session");
  t.diagnostic(`picker:\n${picker}`);
  // Newest first, each by its first prompt, with when and how big.
  const rows = picker.split("\n").filter((row) => /msgs/.test(row));
  assert.equal(rows.length, 2, picker);
  assert.match(rows[0] ?? "", /› write the docs\s+\d{4}-\d\d-\d\d \d\d:\d\d · 2 msgs · \d/);
  assert.match(rows[1] ?? "", /^│\s+fix the parser/);
  await pty.readyForKeys();
  pty.write(keys.down);
  await pty.waitFor(/› fix the parser/);
  await pty.readyForKeys();
  pty.write(keys.enter);
  await pty.waitFor("/help for commands");
  await pty.waitFor(/^› fix the parser$/m);
  assert.doesNotMatch(pty.screen(), /Resume a session/, "the picker gave its place to the chat");

  // A command typed while the resumed session still opens waits with a hint: type once it is idle.
  // Each chat (the picker's, the resumed one's) turns raw mode on just after its first frame: keys
  // typed before reach it as a line, Enter as a line feed (a new line in the prompt, not a submit).
  await pty.waitFor("Ask nex");
  await pty.readyForKeys();
  pty.write(`/resume${keys.enter}`);
  const inChat = await pty.waitFor("(this one)");
  assert.match(inChat, /fix the parser.*\(this one\)/);
  // The picker starts on the newest other session.
  await pty.readyForKeys();
  pty.write(keys.enter);
  await pty.waitFor(/^› write the docs$/m).catch((error) => {
    throw new Error(
      `${error}\nHISTORY:\n${pty.history()}\nRAW:${JSON.stringify(pty.output().slice(-3000))}`,
    );
  });
  // The switched session's transcript is drawn before its prompt box: wait for the box, not a moment.
  const after = await pty.waitFor("Ask nex");
  assert.match(after, /write the docs/, "still in the chat: switched in place");
});

test("sessions stay in their project: the picker and /sessions show this workspace's only, and another project's id is not opened here", async (t) => {
  const box = makeSandbox();
  const other = resolve(box.workspace, "..", "other-project");
  mkdirSync(other);
  const stub = await startStubEndpoint({ handler: () => openaiText("Done.") });
  t.after(() => stub.close());
  const endpoint = ["--base-url", `${stub.url}/v1`, "--model", "m"];
  const here = await runNex(["run", ...endpoint, "fix the parser here"], {
    cwd: box.workspace,
    env: box.env,
  });
  assert.equal(here.code, 0, here.stderr);
  // The other project's session is the newest of all: it must still not be offered here.
  const there = await runNex(["run", ...endpoint, "edit the other project"], {
    cwd: other,
    env: box.env,
  });
  assert.equal(there.code, 0, there.stderr);
  const otherId = /"session_id":"([^"]+)"/.exec(there.stdout + there.stderr)?.[1] ?? "";
  assert.ok(otherId, `no session id in: ${there.stderr}`);

  const pty = spawnPty(process.execPath, [nexBin, "resume", ...endpoint], {
    cols: 100,
    rows: 30,
    cwd: box.workspace,
    env: { ...box.env, TERM: "xterm-256color", OPENAI_API_KEY: "test" },
  });
  t.after(() => pty.kill());
  const picker = await pty.waitFor("Resume a session");
  saveCapture("session-picker-100x30", picker);
  assert.match(picker, /fix the parser here/);
  assert.doesNotMatch(picker, /edit the other project/, picker);
  await pty.readyForKeys();
  pty.write(keys.enter);
  await pty.waitFor(/^› fix the parser here$/m);

  // A command typed while the resumed session still opens waits with a hint: type once it is idle.
  await pty.waitFor("Ask nex");
  await pty.readyForKeys();
  pty.write(`/sessions${keys.enter}`);
  await pty.waitFor("Resume one with");
  assert.doesNotMatch(pty.history(), /edit the other project/);
  await pty.waitFor("Ask nex");

  await pty.readyForKeys();
  pty.write(`/resume ${otherId}${keys.enter}`);
  const refused = await pty.waitFor("belongs to another project");
  saveCapture("session-picker-other-project-100x30", refused);
  assert.match(refused.replace(/\s+/g, " "), /this chat stays in its own workspace/);
  // The command done, the prompt is this project's chat again, with nothing of the other session.
  const after = await pty.waitFor(/Ask nex/);
  assert.match(after, /nex · m at .*\/ws\n/, "the header still names this workspace");
  assert.doesNotMatch(pty.history(), /edit the other project/);
});

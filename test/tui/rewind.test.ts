// `/rewind` in the real chat: the picker of earlier prompts, the plan shown before anything is done,
// then the files restored on disk, the conversation cut (the next request lacks the rewound turns),
// the prompt back in the input box, and a resume that sees the rewound conversation.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { runNex } from "../support/cli.ts";
import { keys } from "../support/pty.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { type NexTui, startNexTui } from "./cli-harness.ts";
import { spinnerShown } from "./tui-harness.ts";

interface WireMessage {
  role: string;
  content: unknown;
}

function edit(from: string, to: string) {
  return openaiToolCall({
    name: "edit_file",
    args: { path: "a.txt", old_string: from, new_string: to },
  });
}

async function idle(nex: NexTui): Promise<void> {
  await nex.pty.waitUntil((s) => !spinnerShown(s), "spinner off");
  await nex.pty.settle(300);
}

test("/rewind restores the files and cuts the conversation to before the chosen prompt", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "read_file", args: { path: "a.txt" } }),
      edit("one", "two"),
      openaiText("Made it two."),
      edit("two", "three"),
      openaiText("Made it three."),
      openaiText("Fresh start."),
    ],
    { files: { "a.txt": "one\n" }, args: ["--permission-mode", "auto_edit"] },
  );
  t.after(() => nex.close());
  const file = join(nex.workspace, "a.txt");
  nex.pty.write(`make it two${keys.enter}`);
  await nex.pty.waitFor("Made it two.");
  await idle(nex);
  nex.pty.write(`then three${keys.enter}`);
  await nex.pty.waitFor("Made it three.");
  await idle(nex);
  assert.equal(readFileSync(file, "utf8"), "three\n");

  nex.pty.write(`/rewind${keys.enter}`);
  const picker = await nex.pty.waitFor("Rewind to before a prompt");
  assert.match(picker, /1\. make it two\s+\d\d:\d\d:\d\d · 1 file changed after · \d+ msgs/);
  assert.match(picker, /› 2\. then three\s+\d\d:\d\d:\d\d · 1 file changed after/);
  nex.pty.write(keys.up);
  await nex.pty.waitFor("› 1. make it two");
  nex.pty.write(keys.enter);
  const plan = await nex.pty.waitFor("Rewind?");
  assert.match(
    plan.replace(/[│\s]+/g, " "),
    /Restores 1 file to before it \(2 undo steps\): a\.txt/,
  );
  assert.equal(readFileSync(file, "utf8"), "three\n", "nothing changes before the yes");
  nex.pty.write("y");
  await nex.pty.waitFor("Rewound to before prompt 1");
  await idle(nex);
  assert.equal(readFileSync(file, "utf8"), "one\n", "the file is as it was before the prompt");
  // The prompt is back in the input box: Enter sends it again.
  assert.match(nex.pty.screen(), /› make it two/);
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("Fresh start.");
  const requests = nex.chatRequests();
  const last = requests.at(-1)?.body as { messages: WireMessage[] };
  assert.deepEqual(
    last.messages.filter((m) => m.role !== "system").map((m) => [m.role, m.content]),
    [["user", "make it two"]],
    "the rewound turns are not sent",
  );
  await idle(nex);

  // What the rewind replaced is set aside, not lost; a resume sees the rewound conversation.
  const sessions = join(nex.dir, "data", "nex", "sessions");
  const journal = readdirSync(sessions).find((f) => f.endsWith(".jsonl")) ?? "";
  const id = journal.replace(/\.jsonl$/, "");
  const resumed = await runNex(
    ["resume", id, "--base-url", `${nex.stub.url}/v1`, "--model", "m", "-p", "what now?"],
    {
      cwd: nex.workspace,
      env: {
        HOME: nex.dir,
        OPENAI_API_KEY: "test",
        XDG_DATA_HOME: join(nex.dir, "data"),
        XDG_CONFIG_HOME: join(nex.dir, "config"),
      },
    },
  );
  t.diagnostic(resumed.stderr);
  const resumedBody = nex.chatRequests().at(-1)?.body as { messages: WireMessage[] };
  const contents = resumedBody.messages.map((m) => String(m.content)).join("\n");
  assert.doesNotMatch(
    contents,
    /then three|Made it three/,
    "a resume sees the rewound conversation",
  );
  assert.match(contents, /what now\?/);
});

test("/rewind N shows the plan and changes nothing; /rewind N yes rewinds", async (t) => {
  const nex = await startNexTui([openaiText("First."), openaiText("Second.")]);
  t.after(() => nex.close());
  nex.pty.write(`first prompt${keys.enter}`);
  await nex.pty.waitFor("First.");
  await idle(nex);
  nex.pty.write(`/rewind 1${keys.enter}`);
  await nex.pty.waitFor("Type /rewind 1 yes to do it.");
  assert.match(nex.pty.history(), /No file changed since then/);
  nex.pty.write(`/rewind 1 yes${keys.enter}`);
  await nex.pty.waitFor("Rewound to before prompt 1");
  await idle(nex);
  nex.pty.write(`${keys.enter}`);
  await nex.pty.waitFor("Second.");
  const last = nex.chatRequests().at(-1)?.body as { messages: WireMessage[] };
  assert.deepEqual(
    last.messages.filter((m) => m.role !== "system").map((m) => m.role),
    ["user"],
  );
});

test("/rewind never clobbers a file changed outside nex: it says so, and only a second yes cuts the conversation", async (t) => {
  const nex = await startNexTui(
    [
      openaiToolCall({ name: "read_file", args: { path: "a.txt" } }),
      edit("one", "two"),
      openaiText("Made it two."),
      openaiText("Again."),
    ],
    { files: { "a.txt": "one\n" }, args: ["--permission-mode", "auto_edit"] },
  );
  t.after(() => nex.close());
  const file = join(nex.workspace, "a.txt");
  nex.pty.write(`make it two${keys.enter}`);
  await nex.pty.waitFor("Made it two.");
  await idle(nex);
  writeFileSync(file, "mine\n");
  nex.pty.write(`/rewind 1 yes${keys.enter}`);
  await nex.pty.waitFor("The conversation was not rewound");
  await idle(nex);
  assert.equal(readFileSync(file, "utf8"), "mine\n", "the user's change is kept");
  assert.match(nex.pty.history().replace(/\s+/g, " "), /Left alone: a\.txt/);
  nex.pty.write(`/rewind 1 yes${keys.enter}`);
  await nex.pty.waitFor("Rewound to before prompt 1");
  await idle(nex);
  assert.equal(readFileSync(file, "utf8"), "mine\n");
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("Again.");
  const last = nex.chatRequests().at(-1)?.body as { messages: WireMessage[] };
  assert.deepEqual(
    last.messages.filter((m) => m.role !== "system").map((m) => [m.role, m.content]),
    [["user", "make it two"]],
  );
});

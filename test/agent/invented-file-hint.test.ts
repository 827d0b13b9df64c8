// r12 add-test-js: told "To look at the file clamp.test.js, call read_file with {"path":
// "clamp.test.js"}" when the file was test/clamp.test.js, the model read a path that was not there.
// A hint names only paths nex found, says plainly when none is there, and claims nothing when nex
// could not look.
import assert from "node:assert/strict";
import { test } from "node:test";
import { replyNudge } from "../../src/agent/reply-nudges.ts";
import { inventedToolReminder } from "../../src/agent/text-tool-call.ts";

const tools = ["read_file", "write_file", "edit_file", "bash", "glob", "list_dir"];
const signal = new AbortController().signal;

test("the no-such-tool reminder names the path where the file of that name is, or the few there are, or says none is there", () => {
  const elsewhere = inventedToolReminder("clamp.test.js", tools, {
    paths: ["test/clamp.test.js"],
    more: false,
  });
  assert.match(elsewhere, /The file clamp\.test\.js is at test\/clamp\.test\.js/);
  assert.match(elsewhere, /call read_file with \{"path": "test\/clamp\.test\.js"\}/);
  assert.doesNotMatch(elsewhere, /"path": "clamp\.test\.js"/);

  const several = inventedToolReminder("util.js", tools, {
    paths: ["src/util.js", "lib/util.js", "test/util.js"],
    more: true,
  });
  assert.match(
    several,
    /Files named util\.js: src\/util\.js, lib\/util\.js, test\/util\.js, and more/,
  );
  assert.doesNotMatch(several, /"path": "util\.js"/);

  const none = inventedToolReminder("stats.py", tools, { paths: [], more: false });
  assert.match(none, /No file named stats\.py is in the workspace/);
  assert.match(none, /call glob with \{"pattern": "\*\.py"\}/);
  assert.match(none, /To create it, call write_file/);
  assert.doesNotMatch(none, /"path": "stats\.py"/);
  // Only the session's tools are suggested.
  assert.doesNotMatch(
    inventedToolReminder("stats.py", ["read_file", "list_dir"], { paths: [], more: false }),
    /glob|write_file/,
  );

  // nex could not look: nothing is claimed about what exists.
  const unknown = inventedToolReminder("stats.py", tools);
  assert.doesNotMatch(unknown, /"path": "stats\.py"|No file named/);
  assert.match(
    unknown,
    /If you mean a file named stats\.py, call glob with \{"pattern": "stats\.py"\}/,
  );
});

test("the loop's reminder for a tool named after a file asks the tool host where that file is, and only for a file name", async () => {
  const asked: string[] = [];
  const host = {
    filesNamed: async (name: string, limit: number) => {
      asked.push(`${name} ${limit}`);
      return ["test/clamp.test.js"];
    },
  };
  const nudges = () => ({ askedForAnswer: true, textCalls: 0, lastTurn: false, runaways: 0 });
  const reply = '{"name": "clamp.test.js", "arguments": {"content": "x"}}';
  const nudge = await replyNudge(reply, tools, nudges(), host, signal);
  assert.equal(nudge?.type, "ask");
  assert.match(nudge?.type === "ask" ? nudge.reminder : "", /"path": "test\/clamp\.test\.js"/);
  assert.deepEqual(asked, ["clamp.test.js 4"]);
  // Not a file's name: nothing to look up.
  await replyNudge('{"name": "to_roman", "arguments": {}}', tools, nudges(), host, signal);
  await replyNudge('{"name": "node test.js", "arguments": {}}', tools, nudges(), host, signal);
  assert.equal(asked.length, 1);
  // A lookup that fails claims nothing.
  const failing = { filesNamed: async () => Promise.reject(new Error("not a directory")) };
  const told = await replyNudge(reply, tools, nudges(), failing, signal);
  assert.doesNotMatch(told?.type === "ask" ? told.reminder : "", /"path": "clamp\.test\.js"/);
});

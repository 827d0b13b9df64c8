// r12/r13 (Qwen2.5-Coder 0.5B): tools invented from a word of the code (`Rectangle`, `get_user`,
// `shipping_cost`) were answered "To see the project's files, call list_dir", and the model invented
// the same tool again. The reminder names where the word is defined (or found), says plainly when no
// file has it, and claims nothing when nex could not look or stopped short.
import assert from "node:assert/strict";
import { test } from "node:test";
import { replyNudge } from "../../src/agent/reply-nudges.ts";
import { inventedToolReminder } from "../../src/agent/text-tool-call.ts";
import { symbolHint } from "../../src/agent/workspace-hints/index.ts";
import type { NameSightings } from "../../src/protocol/index.ts";

const tools = ["read_file", "write_file", "edit_file", "bash", "glob", "grep", "list_dir"];
const signal = new AbortController().signal;
const seen = (sightings: NameSightings["sightings"], complete = false): NameSightings => ({
  sightings,
  complete,
});

const told = (word: string, found: NameSightings) =>
  inventedToolReminder(word, tools, null, symbolHint(word, tools, found));

test("the no-such-tool reminder for a word of the code names the file that defines it and the read_file call that opens it", () => {
  const defined = told(
    "Rectangle",
    seen([
      { kind: "definition", path: "shapes.py", line: 1, text: "class Rectangle:" },
      { kind: "mention", path: "app.py", line: 3, text: "Rectangle(1, 2)" },
    ]),
  );
  assert.match(
    defined,
    /"Rectangle" is not a tool; it is defined in shapes\.py \(line 1: class Rectangle:\)\. To look at it, call read_file with \{"path": "shapes\.py"\}; to change it, edit_file\./,
  );
  assert.doesNotMatch(defined, /app\.py|call list_dir;/);

  const file = told("count", seen([{ kind: "file", path: "src/count.js", line: 0, text: "" }]));
  assert.match(file, /"count" is not a tool; the file src\/count\.js is named after it\./);
  assert.match(file, /call read_file with \{"path": "src\/count\.js"\}/);

  const mentioned = told(
    "service",
    seen([
      { kind: "mention", path: "a.yaml", line: 4, text: "- service" },
      { kind: "mention", path: "b.md", line: 2, text: "the service" },
    ]),
  );
  assert.match(
    mentioned,
    /it occurs in a\.yaml \(line 4: - service\) and b\.md \(line 2: the service\)/,
  );

  // A mention is no place to change the word: only the read is suggested.
  assert.match(
    mentioned,
    /call read_file with \{"path": "a\.yaml"\}\.$|call read_file with \{"path": "a\.yaml"\}\. /,
  );
  assert.doesNotMatch(mentioned, /to change it/);

  // Every file read, none has it: said plainly, with what to do.
  const nowhere = told("Stack", seen([], true));
  assert.match(nowhere, /"Stack" is not a tool, and no file in the workspace has that word/);
  assert.match(nowhere, /edit a file with edit_file or create one with write_file/);
  assert.doesNotMatch(nowhere, /"path"/);
  // The look stopped short: nothing claimed, the search suggested.
  const partial = told("Stack", seen([], false));
  assert.doesNotMatch(partial, /no file|not in the workspace|"path"/);
  assert.match(partial, /To find where "Stack" is, call grep with \{"pattern": "Stack"\}/);
  // nex could not look: the hint it gave before.
  assert.match(inventedToolReminder("Stack", tools), /To see the project's files, call list_dir;/);
});

test("the loop asks the tool host where a word of the code is, only for such a word, and claims nothing when the look fails", async () => {
  const asked: string[] = [];
  const host = {
    whereNamed: async (word: string, limit: number) => {
      asked.push(`${word} ${limit}`);
      return seen([{ kind: "definition", path: "shapes.py", line: 1, text: "class Rectangle:" }]);
    },
  };
  const nudges = () => ({ askedForAnswer: true, textCalls: 0, lastTurn: false, runaways: 0 });
  const call = (name: string) => JSON.stringify({ name, arguments: { width: 2 } });
  const nudge = await replyNudge(call("Rectangle"), tools, nudges(), host, signal);
  assert.match(nudge?.type === "ask" ? nudge.reminder : "", /defined in shapes\.py/);
  assert.deepEqual(asked, ["Rectangle 3"]);
  // A file's name, a command, a name with spaces: not a word of the code.
  for (const name of ["shapes.py", "npm test", "ls", "run the tests"])
    await replyNudge(call(name), tools, nudges(), host, signal);
  assert.equal(asked.length, 1);
  // No read_file in the session: nothing to point at.
  await replyNudge(call("Rectangle"), ["bash", "grep"], nudges(), host, signal);
  assert.equal(asked.length, 1);
  const failing = { whereNamed: async () => Promise.reject(new Error("EACCES")) };
  const told = await replyNudge(call("Rectangle"), tools, nudges(), failing, signal);
  const reminder = told?.type === "ask" ? told.reminder : "";
  assert.doesNotMatch(reminder, /defined|no file|"path"/);
  assert.match(reminder, /call list_dir/);
});

// r12 rename-py (Qwen2.5-Coder 0.5B): `>{"name": "list_dir", ...}` ended the run as done with the JSON
// as its answer. What stands around a JSON call decides what it is: marks, tokens and labels are no
// content (the call is the reply and runs); words make it a call among prose, which never runs and is
// never an answer either. JSON that is no call to a session tool stays an answer either way.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ReplyNudges, replyNudge } from "../../src/agent/reply-nudges.ts";
import {
  brokenJsonCall,
  embeddedToolCall,
  findTextToolCall,
  inventedToolCall,
  jsonReplyCalls,
} from "../../src/agent/text-tool-call.ts";

const tools = ["read_file", "write_file", "edit_file", "bash", "glob", "list_dir"];
const call = '{"name": "list_dir", "arguments": {"path": "user.txt"}}';
const listed = [{ name: "list_dir", args: { path: "user.txt" } }];

const fresh = (): ReplyNudges => ({
  askedForAnswer: true,
  textCalls: 0,
  lastTurn: false,
  runaways: 0,
});

test("a JSON call with only stray marks, template tokens or a label around it is the reply's call (r12 rename-py: a stray '>'); among words or brackets, after a tool-call marker or with more marks it is not", () => {
  const wrapped = [
    `>${call}\n`,
    `> ${call}`,
    `json\n${call}`,
    `JSON: ${call}`,
    `call: ${call}`,
    `Tool call: ${call}`,
    `**Call:** ${call}`,
    `${call}.`,
    `\`${call}\``,
    `- ${call}`,
    `${call}<|im_end|>`,
    `<|im_start|>assistant\n${call}<|im_end|>`,
    `<|start_header_id|>assistant<|end_header_id|>\n\n${call}<|eot_id|>`,
    `${call}</s>`,
    `${call}<｜end▁of▁sentence｜>`,
    `${call}\n</tool_call>`,
    `\`\`\`json\n${call}\n\`\`\`.`,
  ];
  for (const text of wrapped) assert.deepEqual(jsonReplyCalls(text, tools), listed, text);
  // Not the reply's call: words, a tool-call marker, more than a few marks.
  const notTheReply = [
    `Let me list the directory:\n${call}`,
    `${call}\nThen I will read the file.`,
    `1. ${call}`,
    `<tool_call>\n${call}\n</tool_call>`,
    `<|python_tag|>${call}`,
    `[TOOL_CALLS]${call}`,
    `----->>>>> ${call}`,
    `让我列出目录：${call}`,
  ];
  for (const text of notTheReply) assert.equal(jsonReplyCalls(text, tools), null, text);
  // A list of nothing but calls is those calls (Mistral's own format is one); see text-tool-call.test.ts.
  assert.deepEqual(jsonReplyCalls(`[${call}]`, tools), listed);
  // The markers keep their own handling: the server left its chat format unparsed.
  assert.deepEqual(findTextToolCall(`<tool_call>\n${call}\n</tool_call>`, tools), {
    tool: "list_dir",
    marked: true,
  });
});

test("a call to a session tool inside other text (words, a list, another object) is found, whole or broken, under a namespace too; JSON that calls no session tool stays an answer", async () => {
  assert.equal(embeddedToolCall(`Let me list the directory:\n${call}`, tools), "list_dir");
  assert.equal(
    embeddedToolCall(
      `I will read it:\n\`\`\`json\n{"name": "read_file", "arguments": {"path": "a`,
      tools,
    ),
    "read_file",
  );
  assert.equal(
    embeddedToolCall(
      'Calling: {"name": "functions.bash", "parameters": {"command": "ls"}} now',
      tools,
    ),
    "bash",
  );
  // A list of calls is no reply of calls (a list is content), nor a call nested in another
  // object; neither runs, and neither is an answer.
  assert.equal(embeddedToolCall(`[${call}, ${call}]`, tools), "list_dir");
  assert.equal(embeddedToolCall(`{"tool_calls": [${call}]}`, tools), "list_dir");
  const nested = await replyNudge(`{"tool_calls": [${call}]}`, tools, fresh());
  assert.match(nested?.type === "ask" ? nested.reminder : "", /list_dir call as JSON inside other/);
  // A reply that is JSON alone is judged by the checks made for it first: broken JSON is told so.
  const broken = await replyNudge(
    '{"name": "read_file", "arguments": {"path": "a.py"}',
    tools,
    fresh(),
  );
  assert.match(broken?.type === "ask" ? broken.reminder : "", /is not valid JSON/);
  // JSON that calls no session tool stays an answer, wrapped or among words.
  const answers = [
    '> {"name": "my-package", "version": "1.0.0", "scripts": {"test": "node --test"}}',
    'Your package.json reads:\n```json\n{"name": "glob", "version": "10.3.1", "dependencies": {}}\n```',
    'The config file holds:\n```json\n{"name": "server", "port": 8080}\n```\nChange port to 8081.',
    'The tool is defined as {"name": "read_file", "description": "Reads a file", "parameters": {}}.',
    "I ran read_file on a.py and bash with `npm test`; all tests pass.",
    'The reply {"name": "deploy", "arguments": {"env": "prod"}} is what the API expects.',
    // package-lock's packages, two of them named as tools are: a list of records, not calls.
    '[{"name": "glob", "version": "10.3.1"}, {"name": "bash", "version": "5.2"}]',
    '> [{"name": "glob", "version": "10.3.1"}]',
    "Done.",
  ];
  for (const text of answers) {
    assert.equal(jsonReplyCalls(text, tools), null, text);
    assert.equal(embeddedToolCall(text, tools), null, text);
    const nudge = await replyNudge(text, tools, fresh());
    assert.equal(nudge, null, text);
  }
});

test("an invented or broken JSON call with stray marks or doubled braces is named as such, not taken as the answer", () => {
  assert.equal(inventedToolCall('>{"name": "stats.py", "arguments": {}}', tools), "stats.py");
  assert.equal(inventedToolCall('{"name": "stats.py", "arguments": {}}.', tools), "stats.py");
  // Qwen2.5-Coder 1.5B, r5 find-definition: this ended the run as done.
  assert.equal(
    inventedToolCall(
      '{{"name": "compute_checksum", "arguments": {"file": "src/checksums.ts"}}}',
      tools,
    ),
    "compute_checksum",
  );
  assert.equal(inventedToolCall('Try {"name": "stats.py", "arguments": {}}', tools), null);
  assert.equal(
    brokenJsonCall('>{"name": "read_file", "arguments": {"path": "a.py"}', tools),
    "read_file",
  );
});

test("a call among words is told once that nothing ran; the same again ends the run as an error that says so, never as done", async () => {
  const nudges = fresh();
  const text = `Let me list the directory:\n${call}`;
  const first = await replyNudge(text, tools, nudges);
  assert.equal(first?.type, "ask");
  assert.match(
    first?.type === "ask" ? first.reminder : "",
    /list_dir call as JSON inside other text, so nothing ran/,
  );
  const second = await replyNudge(text, tools, nudges);
  assert.equal(second?.type, "error");
  assert.match(
    second?.type === "error" ? second.message : "",
    /list_dir call as JSON text instead of calling the tool, again after nex told it .*ran nothing and the task is not done/,
  );
});

test("a call among words after the run's reminders went to other problems ends the run without claiming the model was told of this one", async () => {
  const nudges = fresh();
  const problems = [
    '{"name": "a.py", "arguments": {}}',
    '{"name": "read_file", "arguments": {"path": "a"}',
    '{"name": "b.py", "arguments": {}}',
  ];
  for (const text of problems)
    assert.equal((await replyNudge(text, tools, nudges))?.type, "ask", text);
  const end = await replyNudge(`Now: ${call}`, tools, nudges);
  assert.equal(end?.type, "error");
  const message = end?.type === "error" ? end.message : "";
  assert.doesNotMatch(message, /again after nex told it/);
  assert.match(message, /so nex ran nothing and the task is not done/);
});

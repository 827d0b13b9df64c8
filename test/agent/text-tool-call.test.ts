import assert from "node:assert/strict";
import { test } from "node:test";
import {
  brokenJsonCall,
  brokenJsonCallReminder,
  inventedToolCall,
  inventedToolReminder,
  jsonReplyCalls,
  textToolCall,
  textToolCallMessage,
} from "../../src/agent/text-tool-call.ts";

const tools = ["read_file", "write_file", "edit_file", "bash"];

test("a tool call written as text in the formats open models use is recognised, with the tool named", () => {
  const cases: Array<[string, string]> = [
    [
      '<tool_call>\n{"name": "write_file", "arguments": {"path": "a.py", "content": "x"}}\n</tool_call>',
      "write_file",
    ],
    [
      "<tool_call>\n<function=edit_file>\n<parameter=path>\na.py\n</parameter>\n</function>\n</tool_call>",
      "edit_file",
    ],
    [
      "I will run the tests.\n<function=bash>\n<parameter=command>npm test</parameter>\n</function>",
      "bash",
    ],
    ['[TOOL_CALLS][{"name": "read_file", "arguments": {"path": "README.md"}}]', "read_file"],
    ['<|python_tag|>{"name": "bash", "parameters": {"command": "ls"}}', "bash"],
    [
      '```json\n{"name": "write_file", "arguments": {"path": "b.txt", "content": "hi"}}\n```',
      "write_file",
    ],
    ['{"name": "read_file", "arguments": {"path": "x"}}', "read_file"],
    // LM Studio's default tool format, as its documentation gives it, left unparsed.
    [
      'Checking.\n[TOOL_REQUEST]{"name": "bash", "arguments": {"command": "ls"}}[END_TOOL_REQUEST]',
      "bash",
    ],
  ];
  for (const [text, tool] of cases) assert.equal(textToolCall(text, tools), tool, text);
});

test("prose and code that mention a tool or show JSON are ordinary answers", () => {
  const answers = [
    "I used write_file to create a.py and then ran the tests with bash; all 12 pass.",
    'The config now reads {"name": "nex", "version": "1.0"}.',
    '{"name": "deploy", "arguments": {"env": "prod"}}',
    'Here is the example from the docs:\n```json\n{"name": "write_file"}\n```\nand that is all.',
    "Done: <tool_call> tags are no longer printed by the formatter.",
  ];
  for (const text of answers) assert.equal(textToolCall(text, tools), null, text);
});

test("a reply of nothing but JSON calls to the session's tools is those calls; anything else is not", () => {
  const call = '{"name": "read_file", "arguments": {"path": "a.py"}}';
  assert.deepEqual(jsonReplyCalls(call, tools), [{ name: "read_file", args: { path: "a.py" } }]);
  assert.deepEqual(jsonReplyCalls(`\`\`\`json\n${call}\n\`\`\``, tools)?.length, 1);
  assert.deepEqual(
    jsonReplyCalls(`\`\`\`json\n${call}\n\`\`\`\n\`\`\`\n${call}\n\`\`\``, tools)?.length,
    2,
  );
  // Arguments of the wrong shape still make a call: nex refuses it as it refuses any such call.
  assert.deepEqual(jsonReplyCalls('{"name": "read_file", "arguments": "a.py"}', tools), [
    { name: "read_file", args: "a.py" },
  ]);
  // Doubled braces around the call (Qwen2.5-Coder 1.5B): one pair less is the call.
  assert.deepEqual(
    jsonReplyCalls(
      '{{"name": "grep", "arguments": {"pattern": "north", "path": "sales.csv"}}}',
      tools.concat("grep"),
    ),
    [{ name: "grep", args: { pattern: "north", path: "sales.csv" } }],
  );
  assert.deepEqual(jsonReplyCalls('{{"name": "grep"}}', tools.concat("grep")), [
    { name: "grep", args: {} },
  ]);
  // One fence of the pair missing (Qwen2.5-Coder 0.5B closes a bare call with a fence).
  assert.equal(jsonReplyCalls(`${call}\n\`\`\``, tools)?.length, 1);
  assert.equal(jsonReplyCalls(`\`\`\`json\n${call}`, tools)?.length, 1);
  const notCalls = [
    `I will read it:\n${call}`,
    '{"name": "deploy", "arguments": {"env": "prod"}}',
    '{"name": "read_file", "arguments": {"path": "a.py"}',
  ];
  for (const text of notCalls) assert.equal(jsonReplyCalls(text, tools), null, text);
});

test("JSON calls one per line, with a schema keyword beside them or an invented tool among them, are the calls they are", () => {
  const read = '{"name": "read_file", "arguments": {"path": "test_greet.py"}}';
  const edit =
    '{"name": "edit_file", "arguments": {"path": "test_greet.py", "old_string": "}", "new_string": "{\\n```"}}';
  // Qwen2.5-Coder 0.5B, add-flag-py: a read and an edit as two lines of JSON, no fences.
  assert.deepEqual(
    jsonReplyCalls(`${read}\n${edit}`, tools)?.map((call) => call.name),
    ["read_file", "edit_file"],
  );
  assert.deepEqual(jsonReplyCalls(`${read}\n${edit}`, tools)?.[1]?.args, {
    path: "test_greet.py",
    old_string: "}",
    new_string: "{\n```",
  });
  // Fenced, one line each, inside one fence.
  assert.equal(jsonReplyCalls(`\`\`\`json\n${read}\n${read}\n\`\`\``, tools)?.length, 2);
  // Keys beside the name and arguments reach no tool (fix-json: todo_write's `content` and `status`).
  assert.deepEqual(
    jsonReplyCalls(
      '{"name": "read_file", "arguments": {"path": "config.json"}, "content": "", "status": "pending"}',
      tools,
    ),
    [{ name: "read_file", args: { path: "config.json" } }],
  );
  // add-method-py: `"additionalProperties": false` beside the arguments is the schema, copied.
  assert.deepEqual(
    jsonReplyCalls(
      '{"name": "bash", "arguments": {"command": "ls"}, "additionalProperties": false}',
      tools,
    ),
    [{ name: "bash", args: { command: "ls" } }],
  );
  // Among several, a call to an invented tool is a call too (refused as such) so the others run.
  assert.deepEqual(
    jsonReplyCalls(`${read}\n{"name": "shipping_cost", "arguments": {"x": 1}}`, tools)?.map(
      (call) => call.name,
    ),
    ["read_file", "shipping_cost"],
  );
  // Arguments in the wire's own forms: a string of JSON, or nothing (dead-code: `"arguments": "null"`).
  assert.deepEqual(
    jsonReplyCalls('{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}', tools),
    [{ name: "bash", args: { command: "ls" } }],
  );
  for (const nothing of ['"null"', '""', "null"])
    assert.deepEqual(jsonReplyCalls(`{"name": "bash", "arguments": ${nothing}}`, tools), [
      { name: "bash", args: {} },
    ]);
  // A stray closing brace after a complete call (r9 fix-import) adds nothing to it.
  assert.deepEqual(
    jsonReplyCalls('{\n  "name": "bash",\n  "arguments": {"command": "ls"}}\n}', tools),
    [{ name: "bash", args: { command: "ls" } }],
  );
  // An object that is no call beside a call (r9 add-flag-py) is left out; the call runs.
  assert.deepEqual(
    jsonReplyCalls(
      '{"name": "list_dir", "arguments": {"path": "."}}\n{"additionalProperties": false}',
      [...tools, "list_dir"],
    ),
    [{ name: "list_dir", args: { path: "." } }],
  );
  const notCalls = [
    '{"name": "shipping_cost", "arguments": {"x": 1}}',
    '{"name": "shipping_cost", "arguments": {"x": 1}}\n{"total": 3}',
    `${read}\nand then I will edit it.`,
    `${read}\n{"name": "edit_file", "arguments": {"path": "a"}`,
  ];
  for (const text of notCalls) assert.equal(jsonReplyCalls(text, tools), null, text);
});

test("a JSON call to a tool the session lacks is named; a call to a known tool or prose is not", () => {
  assert.equal(inventedToolCall('{"name": "stats.py", "arguments": {}}', tools), "stats.py");
  assert.equal(
    inventedToolCall('```json\n{"name": "to_roman", "parameters": {}}\n```', tools),
    "to_roman",
  );
  assert.equal(inventedToolCall('{"name": "bash", "arguments": {}}', tools), null);
  assert.equal(inventedToolCall('{"name": "nex", "version": "1.0"}', tools), null);
  assert.equal(inventedToolCall("The answer is 42.", tools), null);
  // Broken JSON that opens as a call to an unknown tool (a closing brace missing) is still named.
  assert.equal(
    inventedToolCall(
      '{"name": "service", "arguments": {"name": "cache", "depends_on": ["web"]}',
      tools,
    ),
    "service",
  );
  assert.equal(inventedToolCall('{"name": "bash", "arguments": {"command": "ls"', tools), null);
});

test("a JSON call to a session tool that does not parse is named; valid JSON, other tools and prose are not", () => {
  assert.equal(
    brokenJsonCall('{"name": "read_file", "arguments": {"path": "a.py"}', tools),
    "read_file",
  );
  assert.equal(
    brokenJsonCall('```json\n{"name": "bash", "arguments": {"command": "echo "hi""}}\n```', tools),
    "bash",
  );
  assert.equal(brokenJsonCall('{"name": "read_file", "arguments": {"path": "a.py"}}', tools), null);
  assert.equal(brokenJsonCall('{"name": "deploy", "arguments": {"env": "prod"', tools), null);
  assert.equal(brokenJsonCall('The call {"name": "read_file", "arguments": {', tools), null);
  // A call followed by prose that does not parse as a whole is still named.
  assert.equal(
    brokenJsonCall('{"name": "bash", "arguments": {"command": "ls"}, "x": }\nthen done', tools),
    "bash",
  );
  // Of calls one per line, the broken one is named, not the first (which parses).
  assert.equal(
    brokenJsonCall(
      '{"name": "read_file", "arguments": {"path": "a"}}\n{"name": "edit_file", "arguments": {"path": "a"',
      tools,
    ),
    "edit_file",
  );
  assert.equal(
    brokenJsonCall(
      '{"name": "read_file", "arguments": {"path": "a"}}\n{"name": "bash", "arguments": {"command": "x", "ok": False}}',
      tools,
    ),
    "bash",
  );
});

test("the no-such-tool reminder names the call a file or command name meant, and only with tools the session has", () => {
  assert.match(
    inventedToolReminder("node --test", tools),
    /call bash with \{"command": "node --test"\}/,
  );
  assert.match(
    inventedToolReminder("count.js", tools, { paths: ["count.js"], more: false }),
    /call read_file with \{"path": "count.js"\}/,
  );
  assert.doesNotMatch(inventedToolReminder("to_roman", tools), /call (bash|read_file) with/);
  assert.doesNotMatch(inventedToolReminder("count.js", ["bash"]), /read_file/);
  // The list names the tools that do the work; load_tools only invites a call that loads them all.
  assert.doesNotMatch(inventedToolReminder("x", [...tools, "load_tools"]), /load_tools/);
});

test("a JSON call without an arguments key: the keys beside its name are its arguments, a name alone a call without any (r12)", () => {
  const names = tools.concat("list_dir", "bash");
  // Qwen2.5-Coder 0.5B, indent-py and add-flag-js: the run ended "done" with this as its answer.
  assert.deepEqual(jsonReplyCalls('{"name": "list_dir"}', names), [{ name: "list_dir", args: {} }]);
  // fix-json: a bash call with its parameter beside the name, after an edit_file call.
  assert.deepEqual(
    jsonReplyCalls(
      '{"name": "read_file", "arguments": {"path": "a.json"}}\n{"name": "bash", "command": "python3 -m json.tool a.json"}',
      names,
    ),
    [
      { name: "read_file", args: { path: "a.json" } },
      { name: "bash", args: { command: "python3 -m json.tool a.json" } },
    ],
  );
  // An object that names no tool stays an answer.
  assert.equal(jsonReplyCalls('{"name": "Alice", "age": 31}', names), null);
});

test("JSON calls listed with commas between them, in brackets or not, are those calls; a list with anything but calls in it is content (r13 add-flag-py)", () => {
  const read = '{"name": "read_file", "arguments": {"path": "test_greet.py", "content": "x"}}';
  const edit =
    '{"name": "edit_file", "arguments": {"path": "test_greet.py", "old_string": "a, b", "new_string": "}, {"}}';
  const bash =
    '{"name": "bash", "arguments": {"command": "bash -c", "background": true}, "additionalProperties": false}';
  // Qwen2.5-Coder 0.5B, r13 add-flag-py: `{call}, {call}, ...` on one line was told "not valid JSON".
  const listed = `${read}, ${edit}, ${bash}`;
  assert.deepEqual(
    jsonReplyCalls(listed, tools)?.map((call) => call.name),
    ["read_file", "edit_file", "bash"],
  );
  assert.equal(brokenJsonCall(listed, tools), null, "every object parses: no broken call to tell");
  assert.deepEqual(
    jsonReplyCalls(`\`\`\`json\n[${read},\n ${edit}]\n\`\`\``, tools)?.map((call) => call.name),
    ["read_file", "edit_file"],
  );
  // Records that name a tool are no calls: a package-lock's entries, a list with a record among calls.
  const records = '[{"name": "bash", "version": "5.2"}, {"name": "glob", "version": "10.4.5"}]';
  assert.equal(jsonReplyCalls(records, tools), null);
  assert.equal(jsonReplyCalls(`[${read}, {"name": "bash", "version": "5.2"}]`, tools), null);
});

test("what the model and the user are told names the call with the article its name takes (r16: 'a edit_file call')", () => {
  assert.match(brokenJsonCallReminder("edit_file"), /your reply was an edit_file call written/);
  assert.match(brokenJsonCallReminder("read_file"), /your reply was a read_file call written/);
  assert.match(textToolCallMessage("edit_file", false), /^The model wrote an edit_file call/);
});

// Subagents through the real `nex run` against the stub endpoint: a child's requests are scripted in
// order with the parent's (or routed by their system prompt when children run at once).
import assert from "node:assert/strict";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type Sandbox, startNex } from "../support/cli.ts";
import {
  type LoggedRequest,
  openaiText,
  openaiToolCall,
  openaiToolCalls as openaiToolCallsOf,
  type Script,
  type StubHandler,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";
import { until } from "../support/until.ts";

const call = (name: string, args: Record<string, unknown>): Script =>
  openaiToolCall({ name, args });

async function run(
  box: Sandbox,
  scripts: Script[],
  options: { json?: boolean; handler?: StubHandler; extra?: string[]; stdin?: string } = {},
) {
  const stub = await startStubEndpoint({
    scripts,
    ...(options.handler ? { handler: options.handler } : {}),
  });
  const args = [
    "run",
    "--yes",
    ...(options.json ? ["--json"] : []),
    ...(options.extra ?? []),
    "--model",
    "stub-model",
    "--base-url",
    `${stub.url}/v1`,
    "go",
  ];
  const result = await startNex(args, { cwd: box.workspace, env: box.env }).done;
  await stub.close();
  const requests = stub.requestsTo("/v1/chat/completions");
  return { result, requests, bodies: requests.map((r) => JSON.stringify(r.body)) };
}

function events(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const systemOf = (request: LoggedRequest): string =>
  String(
    (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages?.[0]
      ?.content ?? "",
  );
const toolsOf = (request: LoggedRequest): string[] =>
  ((request.body as { tools?: Array<{ function: { name: string } }> }).tools ?? []).map(
    (t) => t.function.name,
  );

test("delegate explore: the child reads with read-only tools in its own conversation and its report comes back", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "notes.txt"), "the secret word is pelican\n");
  const { result, requests, bodies } = await run(
    box,
    [
      call("delegate", { task: "Find the secret word in notes.txt" }),
      call("read_file", { path: "notes.txt" }),
      openaiText("The word is pelican."),
      openaiText("The child says: pelican."),
    ],
    { json: true },
  );
  assert.equal(result.code, 0, result.stderr);
  // The child's first request: its own system prompt, the task as its only prompt, read-only tools, no delegate.
  const child = requests[1] as LoggedRequest;
  assert.match(systemOf(child), /sub-agent of nex/);
  assert.doesNotMatch(bodies[1] ?? "", /"go"/);
  assert.ok(toolsOf(child).includes("read_file"));
  for (const name of ["write_file", "edit_file", "bash", "delegate", "map", "summarize", "reader"])
    assert.ok(!toolsOf(child).includes(name), `${name} offered to an explore child`);
  assert.match(bodies[2] ?? "", /pelican/);
  // The parent gets the report and what it changed, not the child's conversation.
  assert.match(
    bodies[3] ?? "",
    /The word is pelican\..*finished in 2 turn\(s\)\. It changed no files/,
  );
  assert.doesNotMatch(bodies[3] ?? "", /the secret word is pelican/);
  // Every child event carries its agent id and the parent's call; the run's own end has no tag.
  const all = events(result.stdout);
  const childEvents = all.filter((event) => event.agent);
  assert.ok(
    childEvents.some((event) => event.type === "tool_call_started" && event.name === "read_file"),
  );
  const delegateCall = all.find(
    (event) => event.type === "tool_call_started" && event.name === "delegate",
  );
  for (const event of childEvents) {
    const agent = event.agent as { id: string; parentCallId: string };
    assert.equal(agent.parentCallId, delegateCall?.callId);
    assert.equal(agent.id, "agent-1");
  }
  // The child's requests count in the usage shown, marked as the child's.
  assert.ok(all.some((event) => event.type === "usage" && event.agent));
  const ends = all.filter((event) => event.type === "done");
  assert.equal(ends.length, 2);
  assert.ok(ends.at(-1)?.exitCode === 0 && !ends.at(-1)?.agent);
});

test("delegate work: the child edits a file, the parent learns which, must read it before writing it, and undo reverts it with the prompt", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "a.txt"), "alpha\n");
  const { result, bodies } = await run(box, [
    call("delegate", { task: "Change alpha to beta in a.txt", mode: "work" }),
    call("read_file", { path: "a.txt" }),
    call("edit_file", { path: "a.txt", old_string: "alpha", new_string: "beta" }),
    openaiText("Done: a.txt now says beta."),
    // The parent read nothing itself: writing the child's file is refused until it reads it.
    call("write_file", { path: "a.txt", content: "gamma\n" }),
    openaiText("ok"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "beta\n");
  assert.match(bodies[4] ?? "", /Files it changed: a\.txt/);
  assert.match(
    bodies[5] ?? "",
    /Refused: a\.txt exists \(\d+ bytes\) and this session has not read it/,
  );
  assert.match(result.stderr, /↳ \[agent-1 work\] edit_file a\.txt/);
  const undo = await startNex(["undo", "--yes"], { cwd: box.workspace, env: box.env }).done;
  assert.equal(undo.code, 0, undo.stderr + undo.stdout);
  assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "alpha\n");
});

/** The last user message of a request (a child's task, a summary piece). */
const lastUser = (request: LoggedRequest): string => {
  const messages =
    (request.body as { messages?: Array<{ role: string; content: unknown }> }).messages ?? [];
  return String([...messages].reverse().find((m) => m.role === "user")?.content ?? "");
};
const hasToolResult = (request: LoggedRequest): boolean =>
  ((request.body as { messages?: Array<{ role: string }> }).messages ?? []).some(
    (m) => m.role === "tool",
  );

test("two explore children run at once: each one's request is answered only once the other's has arrived", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  let seen: LoggedRequest[] = [];
  // Run one after the other, a child would wait here for the other forever: it waits a while.
  const waitFor = (word: string) =>
    until(
      () => seen.some((r) => systemOf(r).includes("sub-agent") && lastUser(r).includes(word)),
      `the ${word} child's request`,
    ).then(
      () => true,
      () => false,
    );
  const handler: StubHandler = async (request) => {
    seen = [...seen, request];
    if (systemOf(request).includes("sub-agent")) {
      const task = lastUser(request);
      const other = task.includes("north") ? "south" : "north";
      const together = await waitFor(other);
      return openaiText(
        `${task.includes("north") ? "north" : "south"} ${together ? "together" : "alone"}`,
      );
    }
    if (!hasToolResult(request))
      return openaiToolCallsOf([
        { name: "delegate", args: { task: "look north" } },
        { name: "delegate", args: { task: "look south" } },
      ]);
    return openaiText("both back");
  };
  const { result, bodies } = await run(box, [], { handler, json: true });
  assert.equal(result.code, 0, result.stderr);
  const last = bodies.at(-1) ?? "";
  assert.match(last, /north together/);
  assert.match(last, /south together/);
  const ids = new Set(
    events(result.stdout).flatMap((e) => (e.agent ? [(e.agent as { id: string }).id] : [])),
  );
  assert.deepEqual([...ids].sort(), ["agent-1", "agent-2"]);
});

test("an interrupt cancels a running child: the run ends as interrupted and no request follows", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const stub = await startStubEndpoint({
    scripts: [call("delegate", { task: "wait forever" }), { type: "hang" }],
  });
  const nex = startNex(
    ["run", "--yes", "--json", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "go"],
    { cwd: box.workspace, env: box.env },
  );
  await until(() => stub.requestsTo("/v1/chat/completions").length >= 2, "the child's request");
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
  nex.child.kill("SIGINT");
  const result = await nex.done;
  await stub.close();
  assert.equal(result.code, 130, result.stderr);
  const all = events(result.stdout);
  assert.ok(
    all.some((e) => e.type === "aborted" && e.agent),
    "the child reports its interruption",
  );
  assert.equal(all.at(-1)?.type, "aborted");
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 2);
});

test("a child that loops or is refused every call stops at its bound, and the parent hears why", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const { result, bodies } = await run(box, [
    call("delegate", { task: "try to write", max_turns: 3 }),
    call("write_file", { path: "x.txt", content: "x" }),
    call("bash", { command: "echo hi" }),
    call("glob", { pattern: "*" }),
    openaiText("noted"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(existsSync(join(box.workspace, "x.txt")), false);
  assert.match(bodies[2] ?? "", /write_file is not one of this agent's tools/);
  assert.match(
    bodies[4] ?? "",
    /Sub-agent agent-1 \(explore\) stopped: The sub-agent stopped after 3 turns \(its own turn limit\)/,
  );
  // Its reader is the parent model: no flag to raise, no session to resume.
  assert.doesNotMatch(bodies[4] ?? "", /--max-turns|[Rr]esume/);
});

test("map over a dozen inputs: one child each, results gathered in a stored file", {
  timeout: 180_000,
}, async () => {
  const box = makeSandbox();
  const inputs = Array.from({ length: 12 }, (_, i) => `item-${i + 1}`);
  const handler: StubHandler = (request) => {
    if (systemOf(request).includes("one task on one input")) {
      const item = /Input: (item-\d+)/.exec(lastUser(request))?.[1] ?? "?";
      return openaiText(`result for ${item}`);
    }
    if (!hasToolResult(request)) return call("map", { inputs, task: "name the item" });
    return openaiText("mapped");
  };
  const { result, bodies } = await run(box, [], { handler });
  assert.equal(result.code, 0, result.stderr);
  const back = bodies.at(-1) ?? "";
  assert.match(back, /map went through 12 of 12 input\(s\) \(0 failed\)/);
  const name = /@results\/[\w.-]+/.exec(back)?.[0] ?? "";
  const dir = join(box.dataDir, "nex", "results");
  const stored = readdirSync(dir).flatMap((session) =>
    readdirSync(join(dir, session)).map((f) => join(dir, session, f)),
  );
  const file = stored.find((path) => path.endsWith(name.slice("@results/".length)));
  assert.ok(file, `stored ${name}`);
  const text = readFileSync(file, "utf8");
  for (const item of inputs) assert.match(text, new RegExp(`result for ${item}\\n`));
});

test("a map item past its time limit says so, never 'interrupted' or 'the user'", {
  timeout: 180_000,
}, async () => {
  const box = makeSandbox();
  const handler: StubHandler = (request) => {
    if (systemOf(request).includes("one task on one input")) {
      if (lastUser(request).includes("Input: slow")) return { type: "hang" };
      return openaiText("quick result");
    }
    if (!hasToolResult(request))
      // Long enough for the quick item on a loaded machine: only the slow one is to pass it.
      return call("map", { inputs: ["quick", "slow"], task: "look", timeout_seconds: 20 });
    return openaiText("mapped");
  };
  const { result, bodies } = await run(box, [], { handler });
  assert.equal(result.code, 0, result.stderr);
  const back = /map went through[^"]*/.exec(bodies.at(-1) ?? "")?.[0] ?? "";
  assert.match(back, /map went through 2 of 2 input\(s\) \(1 failed\)/);
  assert.doesNotMatch(back, /interrupted|the user/);
  const name = /@results\/[\w.-]+/.exec(back)?.[0] ?? "";
  const dir = join(box.dataDir, "nex", "results");
  const file = readdirSync(dir)
    .flatMap((session) => readdirSync(join(dir, session)).map((f) => join(dir, session, f)))
    .find((path) => path.endsWith(name.slice("@results/".length)));
  assert.ok(file, `stored ${name}`);
  const text = readFileSync(file, "utf8");
  assert.match(text, /## 2\. slow\nFAILED: no result within 20 s/);
  assert.doesNotMatch(text, /interrupted|the user/);
});

test("map over a thousand inputs is refused with a way forward, and no child runs", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const inputs = Array.from({ length: 1000 }, (_, i) => `f${i}`);
  const { result, requests, bodies } = await run(box, [
    call("map", { inputs, task: "x" }),
    openaiText("ok"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(requests.length, 2);
  assert.match(bodies[1] ?? "", /map takes at most 200 inputs; 1000 were given and none was run/);
});

/** A 16k-window config for the stub model. */
function window16k(box: Sandbox): void {
  const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ models: { "stub-model": { contextWindow: 16_384, maxOutput: 2048 } } }),
  );
}

/** A text file of about `bytes` bytes: numbered lines in paragraphs. */
function bigFile(box: Sandbox, name: string, bytes: number): void {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const line = i % 10 === 0 ? "\n" : `line ${i}: the quick brown fox jumps over the lazy dog\n`;
    lines.push(line);
    size += line.length;
  }
  writeFileSync(join(box.workspace, name), lines.join(""));
}

test("summarize on a 16k window: a file ten times the window goes in window-sized pieces, then one merge", {
  timeout: 180_000,
}, async (t) => {
  const box = makeSandbox();
  window16k(box);
  bigFile(box, "big.log", 10 * 16_384 * 4);
  let pieces = 0;
  const handler: StubHandler = (request) => {
    if (systemOf(request).includes("You summarise text")) {
      const text = lastUser(request);
      // Every piece fits the window with room for the answer.
      assert.ok(Buffer.byteLength(JSON.stringify(request.body)) < 16_384 * 3.5);
      if (/merge them into one/.test(text)) return openaiText("MERGED SUMMARY");
      pieces++;
      const first = /line (\d+):/.exec(text)?.[1];
      return openaiText(`piece from line ${first}`);
    }
    if (!hasToolResult(request))
      return call("summarize", { path: "big.log", instruction: "what is in it" });
    return openaiText("summarised");
  };
  const { result, bodies } = await run(box, [], { handler, json: true });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(pieces >= 10, `${pieces} pieces`);
  assert.match(
    bodies.at(-1) ?? "",
    new RegExp(`MERGED SUMMARY.*Summary of big\\.log in ${pieces + 1} request`),
  );
  const progress = events(result.stdout).filter((e) => e.type === "notice" && e.agent);
  assert.ok(progress.some((e) => /summarize: part 1 of/.test(String(e.message))));
  const bytes = statSync(join(box.workspace, "big.log")).size;
  t.diagnostic(`16k window: ${bytes} bytes summarised in ${pieces} pieces and 1 merge, exit 0`);
});

test("a named subagent from .claude/agents: its prompt and tool list apply, its model is shown but not used", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  mkdirSync(join(box.workspace, ".claude", "agents"), { recursive: true });
  writeFileSync(
    join(box.workspace, ".claude", "agents", "finder.md"),
    "---\nname: finder\ndescription: Finds files by name\ntools: Glob, Read\nmodel: opus\n---\nYou only ever look for files. FINDER PROMPT.\n",
  );
  const { result, requests, bodies } = await run(box, [
    call("delegate", { task: "find readme", agent: "finder" }),
    openaiText("no readme"),
    openaiText("ok"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(bodies[0] ?? "", /"enum":\["finder"\]/);
  const child = requests[1] as LoggedRequest;
  assert.match(systemOf(child), /FINDER PROMPT/);
  assert.deepEqual(toolsOf(child).sort(), ["glob", "read_file"]);
  assert.equal((child.body as { model: string }).model, "stub-model");
  assert.match(
    bodies[2] ?? "",
    /Sub-agent agent-1 \(finder\) \(its file asks for model opus; it ran on the session's model stub-model\)/,
  );
});

test("the child's conversation is kept in the parent's journal, and resume leaves it out of the parent's history", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "notes.txt"), "only-the-child-read-this\n");
  const first = await run(box, [
    call("delegate", { task: "read notes.txt" }),
    call("read_file", { path: "notes.txt" }),
    openaiText("CHILD REPORT"),
    openaiText("parent done"),
  ]);
  assert.equal(first.result.code, 0, first.result.stderr);
  const sessions = join(box.dataDir, "nex", "sessions");
  const journal = readdirSync(sessions, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => readFileSync(join(sessions, name), "utf8"))
    .join("");
  assert.match(journal, /only-the-child-read-this/);
  const stub = await startStubEndpoint({ scripts: [openaiText("resumed")] });
  const again = await startNex(
    ["resume", "--last", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "again"],
    { cwd: box.workspace, env: box.env },
  ).done;
  await stub.close();
  assert.equal(again.code, 0, again.stderr);
  const resumed = JSON.stringify(stub.requestsTo("/v1/chat/completions")[0]?.body);
  assert.match(resumed, /CHILD REPORT/);
  assert.doesNotMatch(resumed, /only-the-child-read-this/);
});

test("a child whose answer is cut: the parent hears it was cut, not a finished report", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const { result, bodies } = await run(box, [
    call("delegate", { task: "explain" }),
    openaiText("The answer begins and", { finishReason: "length" }),
    openaiText("noted"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    bodies.at(-1) ?? "",
    /Sub-agent agent-1 \(explore\) stopped: The model's answer was cut off/,
  );
  assert.match(bodies.at(-1) ?? "", /Its last words:\\nThe answer begins and/);
});

test("summarize of a 1 GiB file covers a bounded first part and says what was left out", {
  timeout: 180_000,
}, async () => {
  const box = makeSandbox();
  window16k(box);
  bigFile(box, "huge.log", 2 * 1024 * 1024);
  truncateSync(join(box.workspace, "huge.log"), 1024 ** 3);
  let asked = 0;
  const handler: StubHandler = (request) => {
    if (systemOf(request).includes("You summarise text")) {
      asked++;
      return openaiText(`s${asked}`);
    }
    if (!hasToolResult(request)) return call("summarize", { path: "huge.log" });
    return openaiText("ok");
  };
  const { result, bodies } = await run(box, [], { handler });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(asked <= 64 + 4, `${asked} requests`);
  assert.match(
    bodies.at(-1) ?? "",
    /huge\.log is 1,073,741,824 bytes; only its first 1,\d{3},\d{3} bytes \(\d+ lines\) were covered: the rest was not read/,
  );
});

test("map stops starting children when the endpoint fails them in a row: no request storm, the rest named as not run", {
  timeout: 180_000,
}, async () => {
  const box = makeSandbox();
  const inputs = Array.from({ length: 12 }, (_, i) => `item-${i + 1}`);
  let children = 0;
  const handler: StubHandler = (request) => {
    if (systemOf(request).includes("one task on one input")) {
      children++;
      return status(400, { body: { error: { message: "stub: bad request" } } });
    }
    if (!hasToolResult(request)) return call("map", { inputs, task: "x" });
    return openaiText("ok");
  };
  const { result, bodies } = await run(box, [], { handler });
  assert.equal(result.code, 0, result.stderr);
  assert.ok(children <= 5, `${children} child requests`);
  assert.match(bodies.at(-1) ?? "", /Stopped: the endpoint failed 3 inputs in a row/);
});

test("a child's report larger than a result's share of the window is stored whole and paged", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const report = Array.from({ length: 550 }, (_, i) => `finding ${i + 1}: all fine here`).join(
    "\n",
  );
  const { result, bodies } = await run(
    box,
    [call("delegate", { task: "report at length" }), openaiText(report, { chunkSize: 400 })],
    {
      handler: () => openaiText("ok"),
    },
  );
  assert.equal(result.code, 0, result.stderr);
  const back = bodies[2] ?? "";
  assert.match(back, /@results\/[\w.-]+-delegate\.txt/);
  assert.doesNotMatch(back, /finding 300: all fine here/);
});

test("a work child that leaves a write in parts unfinished is reminded, and its staging is gone when it ends", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const { result, bodies } = await run(box, [
    call("delegate", { task: "write big.txt in two parts", mode: "work" }),
    call("write_file", { path: "big.txt", content: "part one\n", part: 1, parts: 2 }),
    openaiText("Wrote it."),
    openaiText("Sorry, I stopped."),
    openaiText("The child did not finish big.txt."),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(bodies[3] ?? "", /nex: not finished\. A write in parts is incomplete/);
  assert.match(bodies[4] ?? "", /stopped: The model ended without sending every part of big\.txt/);
  assert.equal(existsSync(join(box.workspace, "big.txt")), false);
  assert.deepEqual(readdirSync(box.workspace), []);
});

test("a child that calls a tool no one has hears its own tools and what it probably meant; one the session has is only not its own", {
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "notes.md"), "# notes\n");
  const { result, bodies } = await run(box, [
    call("delegate", { task: "read the notes", max_turns: 3 }),
    call("notes.md", {}),
    call("write_file", { path: "x.txt", content: "x" }),
    openaiText("The notes have a title."),
    openaiText("noted"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  assert.match(
    bodies[2] ?? "",
    /There is no tool named notes\.md\. This agent's tools \(explore\) are: [^"]*read_file/,
  );
  assert.doesNotMatch(bodies[2] ?? "", /are: [^"]*write_file/, "the list is the child's own");
  assert.match(
    bodies[2] ?? "",
    /To look at the file notes\.md, call read_file with \{\\"path\\": \\"notes\.md\\"\}\./,
  );
  assert.match(bodies[3] ?? "", /write_file is not one of this agent's tools/);
});

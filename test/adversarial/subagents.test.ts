// Subagents through the real `nex run` against the stub endpoint: a child's requests are scripted in
// order with the parent's (or routed by their system prompt when children run at once).
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type Sandbox, startNex } from "../support/cli.ts";
import {
  type LoggedRequest,
  openaiText,
  openaiToolCall,
  type Script,
  type StubHandler,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

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
  assert.match(bodies[5] ?? "", /read/i);
  assert.match(result.stderr, /↳ \[agent-1 work\] edit_file a\.txt/);
  const undo = await startNex(["undo", "--yes"], { cwd: box.workspace, env: box.env }).done;
  assert.equal(undo.code, 0, undo.stderr + undo.stdout);
  assert.equal(readFileSync(join(box.workspace, "a.txt"), "utf8"), "alpha\n");
});

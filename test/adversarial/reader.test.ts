// The reader through the real `nex run` against the stub endpoint on a 16k window: rounds that each
// pull one part with next_chunk and keep what matters with write_notes (its only tools: next_chunk,
// write_notes, read_notes, finish), notes kept beside the session; a nex killed mid-reading and
// resumed goes on from the part after its last notes, with those notes, never reading a part twice.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { makeSandbox, type Sandbox, startNex } from "../support/cli.ts";
import {
  type LoggedRequest,
  openaiText,
  openaiToolCall,
  type StubHandler,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

type Message = { role: string; content: unknown; tool_calls?: { function: { name: string } }[] };
type Body = { messages?: Message[]; tools?: { function: { name: string } }[] };
const messagesOf = (request: LoggedRequest) => (request.body as Body).messages ?? [];
const systemOf = (request: LoggedRequest) => String(messagesOf(request)[0]?.content ?? "");
const isReader = (request: LoggedRequest) => systemOf(request).includes("part by part");
const firstUser = (request: LoggedRequest) =>
  String(messagesOf(request).find((m) => m.role === "user")?.content ?? "");
const last = (request: LoggedRequest) => messagesOf(request).at(-1);
const lastCalled = (request: LoggedRequest) =>
  messagesOf(request).findLast((m) => m.role === "assistant")?.tool_calls?.[0]?.function.name;

function setUp(): Sandbox {
  const box = makeSandbox();
  const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ models: { "stub-model": { contextWindow: 16_384, maxOutput: 2048 } } }),
  );
  let text = "";
  for (let i = 1; text.length < 5 * 16_384 * 1.2; i++)
    text += i % 10 === 0 ? "\n" : `line ${i}: the quick brown fox jumps over the lazy dog\n`;
  writeFileSync(join(box.workspace, "big.log"), text);
  return box;
}

/** A reader child that follows its instructions: a part, notes on it, end of round; finish at the end. */
function readerAnswer(
  request: LoggedRequest,
  pulled: number[],
  texts: string[] = [],
): ReturnType<StubHandler> {
  const end = last(request);
  if (end?.role === "user") {
    if (/Every one of the \d+ part\(s\) has been read/.test(String(end.content)))
      return openaiToolCall({ name: "finish", args: { result: "FOXES EVERYWHERE" } });
    return openaiToolCall({ name: "next_chunk", args: {} });
  }
  if (lastCalled(request) === "next_chunk") {
    const part = Number(/Part (\d+) of/.exec(String(end?.content))?.[1]);
    pulled.push(part);
    texts.push(String(end?.content).replace(/^Part \d+ of \d+ \(lines \d+-\d+\):\n/, ""));
    return openaiToolCall({ name: "write_notes", args: { content: `NOTE ${part}` } });
  }
  return openaiText("round done");
}

async function runNexWith(box: Sandbox, handler: StubHandler, extra: string[] = []) {
  const stub = await startStubEndpoint({ handler });
  const nex = startNex(
    ["run", "--yes", ...extra, "--model", "stub-model", "--base-url", `${stub.url}/v1`, "go"],
    { cwd: box.workspace, env: box.env },
  );
  return { stub, nex };
}

test("reader: one part a round through next_chunk, notes through write_notes, finish's answer returned with the notes", {
  timeout: 180_000,
}, async () => {
  const box = setUp();
  const pulled: number[] = [];
  const texts: string[] = [];
  let asked = false;
  const { stub, nex } = await runNexWith(box, (request) => {
    if (isReader(request)) return readerAnswer(request, pulled, texts);
    if (asked) return openaiText("read");
    asked = true;
    return openaiToolCall({ name: "reader", args: { path: "big.log", task: "find the foxes" } });
  });
  const result = await nex.done;
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  const requests = stub.requestsTo("/v1/chat/completions");
  const rounds = requests.filter((r) => isReader(r) && last(r)?.role === "user");
  assert.ok(pulled.length >= 5, `${pulled.length} parts`);
  assert.deepEqual(
    pulled,
    Array.from({ length: pulled.length }, (_, i) => i + 1),
  );
  // Each part reached the reader whole: together they are the file, byte for byte.
  assert.equal(texts.join(""), readFileSync(join(box.workspace, "big.log"), "utf8"));
  // Its only tools; each round a fresh conversation carrying the notes so far and no earlier part.
  for (const round of requests.filter(isReader))
    assert.deepEqual(((round.body as Body).tools ?? []).map((t) => t.function.name).sort(), [
      "finish",
      "next_chunk",
      "read_notes",
      "write_notes",
    ]);
  assert.match(firstUser(rounds[2] as LoggedRequest), /<notes>\nNOTE 1\nNOTE 2\n<\/notes>/);
  for (const round of requests.filter(isReader))
    assert.ok(round.rawBody.length < 16_384 * 4, "a round fits the 16k window");
  const back = String(last(requests.at(-1) as LoggedRequest)?.content);
  assert.match(back, /^FOXES EVERYWHERE\n\nNotes:\nNOTE 1\nNOTE 2\n/);
  assert.match(
    back,
    new RegExp(`\\[Read ${pulled.length} of ${pulled.length} part\\(s\\) of big\\.log\\.\\]`),
  );
  // The notes are kept beside the session, private to the user.
  const readers = join(box.dataDir, "nex", "readers");
  const [session] = readdirSync(readers);
  const [reading] = readdirSync(join(readers, session as string));
  const notes = join(readers, session as string, reading as string, "notes.md");
  assert.match(readFileSync(notes, "utf8"), /^NOTE 1\nNOTE 2\n/);
  assert.equal(statSync(notes).mode & 0o777, 0o600);
});

test("a nex killed mid-reading, resumed, reads on from the part after its last notes, with them", {
  timeout: 240_000,
}, async () => {
  const box = setUp();
  const pulled: number[] = [];
  let killed = () => {};
  const wasKilled = new Promise<void>((resolve) => {
    killed = resolve;
  });
  let asked = false;
  const first = await runNexWith(box, (request) => {
    if (isReader(request)) {
      // Part 3 was pulled and its notes not yet written: the process dies here.
      if (lastCalled(request) === "next_chunk" && pulled.length === 2) {
        first.nex.child.kill("SIGKILL");
        killed();
        return openaiText("never seen");
      }
      return readerAnswer(request, pulled);
    }
    if (asked) return openaiText("read");
    asked = true;
    return openaiToolCall({ name: "reader", args: { path: "big.log", task: "find the foxes" } });
  });
  await wasKilled;
  await first.nex.done;
  await first.stub.close();
  assert.deepEqual(pulled, [1, 2]);

  const again: number[] = [];
  let resumedRound = "";
  let askedAgain = false;
  const second = await runNexWith(
    box,
    (request) => {
      if (isReader(request)) {
        if (!resumedRound) resumedRound = firstUser(request);
        return readerAnswer(request, again);
      }
      if (askedAgain) return openaiText("read");
      askedAgain = true;
      return openaiToolCall({ name: "reader", args: { path: "big.log", task: "find the foxes" } });
    },
    ["--last"],
  );
  const result = await second.nex.done;
  await second.stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.match(resumedRound, /the next is part 3\./);
  assert.match(resumedRound, /<notes>\nNOTE 1\nNOTE 2\n<\/notes>/);
  assert.equal(again[0], 3, `${again}`);
  const requests = second.stub.requestsTo("/v1/chat/completions");
  const back = String(last(requests.at(-1) as LoggedRequest)?.content);
  assert.match(back, /^FOXES EVERYWHERE\n\nNotes:\nNOTE 1\nNOTE 2\nNOTE 3\n/);
  assert.match(back, /it went on from part 3, where an interrupted reading had left its notes/);
});

test("a model that never uses the reader's tools stops it after two rounds: no request per part", {
  timeout: 120_000,
}, async () => {
  const box = setUp();
  let rounds = 0;
  let asked = false;
  const { stub, nex } = await runNexWith(box, (request) => {
    if (isReader(request)) {
      rounds++;
      return openaiText("I would rather not.");
    }
    if (asked) return openaiText("ok");
    asked = true;
    return openaiToolCall({ name: "reader", args: { path: "big.log", task: "find the foxes" } });
  });
  const result = await nex.done;
  await stub.close();
  assert.equal(result.code, 0, result.stderr);
  assert.equal(rounds, 2);
  const requests = stub.requestsTo("/v1/chat/completions");
  assert.match(
    String(last(requests.at(-1) as LoggedRequest)?.content),
    /reader of big\.log stopped at part 1 of \d+: the model used none of the reader's tools in 2 rounds in a row\. Its notes are kept/,
  );
});

// What real servers send: each recording in test/providers/corpus/ replayed byte for byte into the
// real `nex run --json`, and nex's conclusion checked against what the recording says (calls whole
// with their exact arguments, the answer, the reasoning apart from it, what goes back in history).
// Plus the classes the recordings stand for, written small: a missing or empty stop reason is
// unknown, not abnormal; a refusal is shown as one; `<think>` split even when cut across chunks.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Recording, recordings } from "../providers/corpus/recordings.ts";
import type { LoggedRequest, Script } from "../support/stub-endpoint.ts";
import { anthropicText, openaiText, openaiToolCall, sse } from "../support/stub-scripts.ts";
import { absent, type Check, exitCode, type FaultScenario, fileIs } from "./scenario.ts";

const CORPUS = join(import.meta.dirname, "..", "providers", "corpus");

/** A recorded body, sent exactly as it was recorded. */
function replay(file: string): Script {
  const body = readFileSync(join(CORPUS, file), "utf8");
  if (file.endsWith(".json")) {
    return { type: "reply", status: 200, headers: { "content-type": "application/json" }, body };
  }
  return {
    type: "stream",
    status: 200,
    headers: { "content-type": "text/event-stream" },
    parts: [body],
  };
}

type Event = { type: string; [key: string]: unknown };

/** The `--json` events nex printed. */
function eventsOf(stdout: string): Event[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Event);
}

/** The reasoning shown while the first response streamed. */
function firstReasoning(events: Event[]): string {
  const end = events.findIndex((e) => e.type === "request_finished");
  return (end < 0 ? events : events.slice(0, end))
    .filter((e) => e.type === "reasoning_delta")
    .map((e) => e.text as string)
    .join("");
}

const matches = (expected: string | RegExp, actual: string) =>
  typeof expected === "string" ? actual === expected : expected.test(actual);

const show = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);

const INTEGRITY = new Set([
  "output_limit",
  "stream_dropped",
  "abnormal_stop",
  "unparseable",
  "not_an_object",
]);

function recordingChecks(r: Recording): Check[] {
  const checks: Check[] = [exitCode(r.error ? 1 : 0)];
  checks.push((o) => {
    const events = eventsOf(o.stdout);
    const terminal = events.at(-1);
    if (r.error) {
      if (terminal?.type !== "error") return `ended with ${terminal?.type}, expected an error`;
      const message = String(terminal.message);
      return r.error.test(message) ? null : `error ${show(message)}, expected ${r.error}`;
    }
    if (terminal?.type !== "done")
      return `ended with ${terminal?.type}: ${show(String(terminal?.message ?? ""))}`;
    return null;
  });
  if (r.calls) {
    const calls = r.calls;
    checks.push((o) => {
      const events = eventsOf(o.stdout);
      const refused = events.filter(
        (e) => e.type === "tool_call_refused" && INTEGRITY.has(String(e.cause)),
      );
      if (refused.length > 0) return `refused a recorded call: ${show(String(refused[0]?.reason))}`;
      const started = events
        .filter((e) => e.type === "tool_call_started")
        .map((e) => ({ name: e.name, args: e.args }));
      return JSON.stringify(started) === JSON.stringify(calls)
        ? null
        : `ran ${JSON.stringify(started)}, expected ${JSON.stringify(calls)}`;
    });
  }
  if (r.cut) {
    const cause = r.cut;
    checks.push((o) => {
      const events = eventsOf(o.stdout);
      const first = events.findIndex((e) => e.type === "request_finished");
      const before = events.slice(
        0,
        first < 0
          ? events.length
          : events.findIndex((e, i) => i > first && e.type === "request_started"),
      );
      if (before.some((e) => e.type === "tool_call_started")) return "ran a call the recording cut";
      const refused = before.filter((e) => e.type === "tool_call_refused");
      return refused.length > 0 && refused.every((e) => e.cause === cause)
        ? null
        : `refused ${JSON.stringify(refused.map((e) => e.cause))}, expected ${cause}`;
    });
  }
  if (r.text !== undefined && !r.error && (r.calls ?? []).length === 0) {
    const text = r.text;
    checks.push((o) => {
      const done = eventsOf(o.stdout).find((e) => e.type === "done");
      const answer = String(done?.finalText ?? "");
      return matches(text, answer)
        ? null
        : `answered ${show(answer)}, expected ${show(String(text))}`;
    });
  }
  if (r.reasoning !== undefined) {
    const expected = r.reasoning;
    checks.push((o) => {
      const events = eventsOf(o.stdout);
      const reasoning = firstReasoning(events);
      if (!matches(expected, reasoning)) {
        return `reasoning ${show(reasoning)}, expected ${show(String(expected))}`;
      }
      const answer = String(events.find((e) => e.type === "done")?.finalText ?? "");
      const head = reasoning.trim().slice(0, 40);
      return head && answer.includes(head) ? "the reasoning is part of the final answer" : null;
    });
  }
  // Nothing the server did itself is ever sent back as a nameless client call.
  checks.push((o) =>
    o.requests.some((req) => req.rawBody.includes("unnamed_tool_call"))
      ? "a server block went back as an unnamed client tool call"
      : null,
  );
  checks.push(...historyChecks(r));
  return checks;
}

/** What the next request must carry back: reasoning the server requires, blocks as they came. */
function historyChecks(r: Recording): Check[] {
  const body = readFileSync(join(CORPUS, r.file), "utf8");
  const checks: Check[] = [];
  if (r.wire === "anthropic") {
    const signatures = [...body.matchAll(/"signature":"([^"]+)"/g)].map((m) => m[1] as string);
    const joined = streamedSignatures(body);
    const expected = joined.length > 0 ? joined : signatures;
    if (expected.length > 0 && ((r.calls ?? []).length > 0 || r.next)) {
      checks.push((o) => {
        const sent = assistantBlocks(o.requests[1]).filter((b) => b.type === "thinking");
        const got = sent.map((b) => b.signature);
        return expected.every((sig) => got.includes(sig))
          ? null
          : `thinking went back with signatures ${JSON.stringify(got.map((s) => String(s).slice(0, 12)))}`;
      });
    }
    if (r.next) {
      checks.push((o) => {
        const second = o.requests[1]?.body as { messages?: { role: string }[] } | undefined;
        const last = second?.messages?.at(-1);
        if (last?.role !== "assistant")
          return "the paused turn was not sent back as the last message";
        const blocks = assistantBlocks(o.requests[1]);
        const server = blocks.filter(
          (b) => b.type === "server_tool_use" || b.type === "web_search_tool_result",
        );
        const recorded = (body.match(/"type":"(server_tool_use|web_search_tool_result)"/g) ?? [])
          .length;
        return server.length === recorded
          ? null
          : `${server.length} server blocks went back, the recording has ${recorded}`;
      });
    }
  }
  if (r.wire === "openai" && body.includes('"reasoning_content"') && (r.calls ?? []).length > 0) {
    checks.push((o) => {
      const second = o.requests[1]?.body as { messages?: Record<string, unknown>[] } | undefined;
      const assistant = second?.messages?.find((m) => m.role === "assistant" && m.tool_calls);
      const reasoning = firstReasoning(eventsOf(o.stdout));
      return assistant?.reasoning_content === reasoning
        ? null
        : "the tool-call turn went back without its reasoning_content (DeepSeek answers 400)";
    });
  }
  return checks;
}

/** Signatures as streamed: signature_delta pieces joined per block. */
function streamedSignatures(body: string): string[] {
  const byIndex = new Map<number, string>();
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ") || !line.includes("signature_delta")) continue;
    const event = JSON.parse(line.slice(6)) as { index: number; delta: { signature: string } };
    byIndex.set(event.index, (byIndex.get(event.index) ?? "") + event.delta.signature);
  }
  return [...byIndex.values()];
}

function assistantBlocks(request: LoggedRequest | undefined): Record<string, unknown>[] {
  const body = request?.body as { messages?: { role: string; content: unknown }[] } | undefined;
  const out: Record<string, unknown>[] = [];
  for (const m of body?.messages ?? []) {
    if (m.role === "assistant" && Array.isArray(m.content))
      out.push(...(m.content as Record<string, unknown>[]));
  }
  return out;
}

const recordingScenarios: FaultScenario[] = recordings.map((r) => ({
  name: `recorded: ${r.service} (${r.file})`,
  wire: r.wire,
  expect: r.error
    ? `the run ends saying ${r.error.source}`
    : r.cut
      ? "the calls are refused as cut, nothing run"
      : r.calls && r.calls.length > 0
        ? `${r.calls.map((c) => c.name).join(", ")} run whole with the recorded arguments`
        : "the answer shown, reasoning apart, nothing run",
  permission: ["--yes", "--json"],
  ...(r.files ? { files: r.files } : {}),
  scripts: [replay(r.file), ...(r.next ?? []).map(replay)],
  // A cut answer is asked once more with a larger limit: the server answers the same way again.
  always: r.error
    ? replay(r.file)
    : r.wire === "openai"
      ? openaiText("Done.")
      : anthropicText("Done."),
  checks: recordingChecks(r),
}));

// ---------------------------------------------------------------- the classes, written small

const chunk = (delta: Record<string, unknown>, finish: string | null = null, usage?: object) =>
  sse({ choices: [{ index: 0, delta, finish_reason: finish }], ...(usage ? { usage } : {}) });

const stream = (parts: string[]): Script => ({
  type: "stream",
  status: 200,
  headers: { "content-type": "text/event-stream" },
  parts,
});

const write = { path: "a.txt", content: "A\n" };
const callChunk = (args: string) =>
  chunk({
    tool_calls: [
      { index: 0, id: "c1", type: "function", function: { name: "write_file", arguments: args } },
    ],
  });

const answerIs =
  (expected: string): Check =>
  (o) => {
    const done = eventsOf(o.stdout).find((e) => e.type === "done");
    return done?.finalText === expected
      ? null
      : `answered ${show(String(done?.finalText ?? o.stderr.slice(-200)))}`;
  };

const reasoningIs =
  (expected: string): Check =>
  (o) => {
    const reasoning = firstReasoning(eventsOf(o.stdout));
    return reasoning === expected
      ? null
      : `reasoning ${show(reasoning)}, expected ${show(expected)}`;
  };

const classScenarios: FaultScenario[] = [
  {
    name: "a tool call streamed with [DONE] but no finish reason (TGI)",
    wire: "openai",
    expect: "an unknown stop reason is not abnormal: the whole call runs",
    scripts: [
      openaiToolCall({ name: "write_file", args: write, finishReason: null }),
      openaiText("ok"),
    ],
    checks: [fileIs("a.txt", "A\n"), exitCode(0)],
  },
  {
    name: 'a tool call with finish_reason "" (gateways)',
    wire: "openai",
    expect: "an empty stop reason says nothing: the whole call runs",
    scripts: [
      openaiToolCall({ name: "write_file", args: write, finishReason: "" }),
      openaiText("ok"),
    ],
    checks: [fileIs("a.txt", "A\n"), exitCode(0)],
  },
  {
    name: "no finish reason and usage at max_tokens",
    wire: "openai",
    expect: "still cut: usage at the limit poisons the call",
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: write,
        finishReason: null,
        usage: { input: 10, output: 1_000_000 },
      }),
      openaiText("ok"),
    ],
    checks: [absent("a.txt")],
  },
  {
    name: "no finish reason and no [DONE]",
    wire: "openai",
    expect: "still cut: without the terminator nothing runs",
    scripts: [
      openaiToolCall({ name: "write_file", args: write, finishReason: null, includeDone: false }),
      openaiText("ok"),
    ],
    checks: [absent("a.txt")],
  },
  {
    name: "no finish reason and arguments that do not parse",
    wire: "openai",
    expect: "still refused: the parse must be strict or lossless",
    scripts: [stream([callChunk('{"path":"a.txt","content":"A'), sse("[DONE]")]), openaiText("ok")],
    checks: [absent("a.txt")],
  },
  {
    name: 'a streamed call without a function wrapper, ended by finish_reason "tool" (older llama.cpp)',
    wire: "openai",
    expect: "read as the tool call it is: the whole call runs",
    scripts: [
      stream([
        chunk({
          role: "assistant",
          tool_calls: [
            {
              index: 0,
              name: "write_file",
              arguments: JSON.stringify({ path: "a.txt", content: "A\n" }),
            },
          ],
        }),
        chunk({}, "tool"),
        sse("[DONE]"),
      ]),
      openaiText("ok"),
    ],
    checks: [fileIs("a.txt", "A\n"), exitCode(0)],
  },
  {
    name: "an explicit content_filter stop",
    wire: "openai",
    expect: "an explicit non-normal reason still poisons the call",
    scripts: [
      openaiToolCall({ name: "write_file", args: write, finishReason: "content_filter" }),
      openaiText("ok"),
    ],
    checks: [absent("a.txt")],
  },
  {
    name: "an OpenAI refusal in delta.refusal",
    wire: "openai",
    expect: "shown as the refusal it is, not as an empty response",
    permission: ["--yes", "--json"],
    scripts: [
      stream([
        chunk({ role: "assistant", content: null, refusal: "" }),
        chunk({ refusal: "I'm sorry, " }),
        chunk({ refusal: "I can't help with that." }),
        chunk({}, "stop"),
        sse("[DONE]"),
      ]),
    ],
    checks: [answerIs("I'm sorry, I can't help with that."), exitCode(0)],
  },
  {
    name: "an OpenAI refusal in message.refusal (whole answer)",
    wire: "openai",
    expect: "shown as the refusal it is",
    permission: ["--yes", "--json"],
    scripts: [
      {
        type: "reply",
        status: 200,
        body: {
          choices: [
            {
              index: 0,
              message: { role: "assistant", content: null, refusal: "I can't do that." },
              finish_reason: "stop",
            },
          ],
        },
      },
    ],
    checks: [answerIs("I can't do that."), exitCode(0)],
  },
  {
    name: "<think> reasoning cut across chunks at every tag boundary",
    wire: "openai",
    expect: "the reasoning is split out of the answer, whatever the chunking",
    permission: ["--yes", "--json"],
    scripts: [
      stream([
        chunk({ role: "assistant", content: "\n<th" }),
        chunk({ content: "ink>Let me think about <b> tags" }),
        chunk({ content: " here.</thi" }),
        chunk({ content: "nk>" }),
        chunk({ content: "\n\nThe answer is <think>42</think>." }),
        chunk({}, "stop"),
        sse("[DONE]"),
      ]),
    ],
    checks: [
      answerIs("The answer is <think>42</think>."),
      reasoningIs("Let me think about <b> tags here."),
      exitCode(0),
    ],
  },
  {
    name: "a lone </think> (the template opened the reasoning in the prompt)",
    wire: "openai",
    expect: "what precedes the closing tag is kept out of the final answer",
    permission: ["--yes", "--json"],
    scripts: [
      stream([
        chunk({ role: "assistant", content: "The user wants a greeting.\n</th" }),
        chunk({ content: "ink>\n\nHello!" }),
        chunk({}, "stop"),
        sse("[DONE]"),
      ]),
    ],
    checks: [answerIs("Hello!"), exitCode(0)],
  },
  {
    name: "an answer that mentions </think> inside a sentence",
    wire: "openai",
    expect: "a tag in running text is the answer's text, not the end of reasoning: nothing is lost",
    permission: ["--yes", "--json"],
    scripts: [
      stream([
        chunk({
          role: "assistant",
          content: "The template closes reasoning with the `</think>` tag; ",
        }),
        chunk({ content: "everything after it is the answer." }),
        chunk({}, "stop"),
        sse("[DONE]"),
      ]),
    ],
    checks: [
      answerIs(
        "The template closes reasoning with the `</think>` tag; everything after it is the answer.",
      ),
      exitCode(0),
    ],
  },
  {
    name: "reasoning_content on a tool-call turn (DeepSeek thinking mode)",
    wire: "openai",
    expect: "the call runs; its reasoning goes back with it, and not on a plain answer",
    permission: ["--yes", "--json"],
    scripts: [
      stream([
        chunk({ role: "assistant", content: null, reasoning_content: "Write " }),
        chunk({ reasoning_content: "the file." }),
        callChunk(JSON.stringify(write)),
        chunk({}, "tool_calls"),
        sse("[DONE]"),
      ]),
      stream([
        chunk({ reasoning_content: "All done." }),
        chunk({ content: "Written." }),
        chunk({}, "stop"),
        sse("[DONE]"),
      ]),
      openaiText("ok"),
    ],
    task: "write a.txt",
    checks: [
      fileIs("a.txt", "A\n"),
      answerIs("Written."),
      (o) => {
        const messages =
          (o.requests[1]?.body as { messages?: Record<string, unknown>[] } | undefined)?.messages ??
          [];
        const call = messages.find((m) => m.role === "assistant");
        return call?.reasoning_content === "Write the file."
          ? null
          : "reasoning_content did not go back";
      },
    ],
  },
  {
    name: "reasoning in headless text output",
    wire: "openai",
    expect: "one collapsed line with its size on stderr; stdout holds the answer alone",
    scripts: [replay("deepseek-reasoning.sse")],
    checks: [
      (o) =>
        o.stdout === 'The word "strawberry" contains three "r"s.\n'
          ? null
          : `stdout ${show(o.stdout)}`,
      (o) =>
        /⋯ reasoning \(606 characters, not shown; --json has it\)/.test(o.stderr)
          ? null
          : `stderr ${show(o.stderr.slice(-300))}`,
      (o) =>
        /count the number of the letter/.test(o.stderr + o.stdout)
          ? "the reasoning was printed"
          : null,
    ],
  },
  {
    name: "an error event inside a 200 stream before any output",
    wire: "openai",
    expect: "described as an error in the body, not as an HTTP 400 the server never sent",
    scripts: [
      stream([sse({ error: { message: "model overloaded", type: "invalid_request_error" } })]),
    ],
    checks: [
      (o) => (/answered HTTP 400/.test(o.stderr) ? "said HTTP 400" : null),
      (o) =>
        /HTTP 200 with an error in the body/.test(o.stderr)
          ? null
          : `stderr: ${show(o.stderr.slice(-160))}`,
    ],
  },
];

export const serverScenarios: FaultScenario[] = [...recordingScenarios, ...classScenarios];

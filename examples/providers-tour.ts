// A tour of the provider layer on its own: src/providers talking to the scripted endpoint on
// 127.0.0.1, one behaviour per line. Run: `npm run tour` (or `node examples/providers-tour.ts`).
// The 5xx step uses a 100 ms backoff base instead of the default 1 s so the tour stays short.
import { startStubEndpoint } from "../src/demo/scripted-endpoint.ts";
import {
  anthropicToolUse,
  json,
  openaiToolCall,
  type Script,
  status,
} from "../src/demo/scripts.ts";
import type { ModelRequest, ProviderEvent, StreamFn } from "../src/protocol/index.ts";
import {
  createAnthropicClient,
  createOpenAIClient,
  discoverContextWindow,
} from "../src/providers/index.ts";

const stub = await startStubEndpoint();
const request: ModelRequest = {
  model: "tour-model",
  system: "You are a tour.",
  messages: [{ type: "user", text: "write the file" }],
  tools: [{ name: "write_file", description: "writes a file", parameters: { type: "object" } }],
  maxTokens: 4096,
  requestId: 1,
};
const openai = createOpenAIClient({
  baseUrl: `${stub.url}/v1`,
  apiKey: "sk-tour-secret",
  retry: { baseDelayMs: 100 },
});
const anthropic = createAnthropicClient({ baseUrl: stub.url, apiKey: "sk-tour-secret" });

async function run(client: StreamFn, script: Script | Script[], signal?: AbortSignal) {
  for (const s of [script].flat()) stub.enqueue(s);
  const before = stub.requests.length;
  const started = Date.now();
  const events: ProviderEvent[] = [];
  for await (const event of client(request, signal ?? new AbortController().signal))
    events.push(event);
  const last = events.at(-1);
  const waits = events.flatMap((e) => (e.type === "attempt_failed" ? [e.retryInMs] : []));
  return { last, requests: stub.requests.length - before, waits, ms: Date.now() - started };
}

function verdicts(last: ProviderEvent | undefined): string {
  if (last?.type !== "done")
    return `error ${last?.type === "error" ? `${last.error.code}: ${last.error.message}` : "?"}`;
  return last.turn.toolCalls
    .map((c) =>
      c.verdict.type === "whole"
        ? `whole (${c.verdict.recovery})`
        : `poisoned: ${c.verdict.reason}`,
    )
    .join("; ");
}

const content = "line of the file\n".repeat(200);
const call = { name: "write_file", args: { path: "a.txt", content } };
const show = (label: string, text: string) => console.log(`${label.padEnd(34)} ${text}`);

show("complete tool call:", verdicts((await run(openai, openaiToolCall(call))).last));
show(
  "cut mid-string, finish=length:",
  verdicts(
    (
      await run(
        openai,
        openaiToolCall({ ...call, cutAt: 900, finishReason: "length", includeDone: true }),
      )
    ).last,
  ),
);
show(
  "relabelled 'stop', usage=max:",
  verdicts(
    (
      await run(
        openai,
        openaiToolCall({ ...call, finishReason: "stop", usage: { input: 10, output: 4096 } }),
      )
    ).last,
  ),
);
show(
  "socket destroyed mid-stream:",
  verdicts(
    (await run(openai, { ...openaiToolCall(call), cutBodyAt: 1200, end: "destroy" } as Script))
      .last,
  ),
);
show(
  "no [DONE] terminator:",
  verdicts((await run(openai, openaiToolCall({ ...call, includeDone: false }))).last),
);
show(
  "fenced arguments (lossless):",
  verdicts(
    (
      await run(
        openai,
        openaiToolCall({
          name: "write_file",
          args: '```json\n{"path":"a.txt","content":"x"}\n```',
        }),
      )
    ).last,
  ),
);

const bad = await run(openai, status(400, { body: { error: { message: "messages[3]: bad" } } }));
show(
  "400:",
  `${bad.requests} request, ${bad.last?.type}: ${bad.last?.type === "error" ? bad.last.error.message : ""}`,
);
const limited = await run(openai, [
  status(429, { headers: { "retry-after": "1" } }),
  openaiToolCall(call),
]);
show(
  "429 Retry-After: 1:",
  `${limited.requests} requests, waits ${JSON.stringify(limited.waits)} ms, then ${verdicts(limited.last)}`,
);
const far = await run(openai, status(429, { headers: { "retry-after": "120" } }));
show(
  "429 Retry-After: 120:",
  `${far.requests} request in ${far.ms} ms: ${far.last?.type === "error" ? far.last.error.message : ""}`,
);
const down = await run(
  openai,
  Array.from({ length: 6 }, () => status(503)),
);
show("503 every time:", `${down.requests} requests, waits ${JSON.stringify(down.waits)} ms`);
const overflow = await run(
  openai,
  status(400, {
    body: {
      error: {
        message:
          "This model's maximum context length is 32768 tokens. However, you requested 40100 tokens.",
      },
    },
  }),
);
show(
  "context too long (vLLM wording):",
  overflow.last?.type === "error"
    ? `${overflow.last.error.code}, limit ${overflow.last.error.contextLimit}`
    : "?",
);
const controller = new AbortController();
setTimeout(() => controller.abort(), 200);
const aborted = await run(
  openai,
  status(429, { headers: { "retry-after": "30" } }),
  controller.signal,
);
show(
  "abort during a 30 s wait:",
  `ended after ${aborted.ms} ms with ${aborted.last?.type === "error" ? aborted.last.error.code : "?"}`,
);

show(
  "Anthropic complete tool_use:",
  verdicts(
    (
      await run(
        anthropic,
        anthropicToolUse({ name: "write_file", input: { path: "a.txt", content: "x" } }),
      )
    ).last,
  ),
);
show(
  "Anthropic unparseable input:",
  verdicts(
    (
      await run(
        anthropic,
        anthropicToolUse({ name: "write_file", input: '{"path":"a.txt","content":"x' }),
      )
    ).last,
  ),
);

stub.setRoute("GET /v1/models", json({ data: [{ id: "tour-model", max_model_len: 16384 }] }));
const window = await discoverContextWindow({
  baseUrl: `${stub.url}/v1`,
  model: "tour-model",
  kind: "openai",
});
show("window from the endpoint:", JSON.stringify(window));
const leaked = stub.requests.some((r) => JSON.stringify(r.body).includes("sk-tour-secret"));
show("key in any request body:", leaked ? "YES (bug)" : "no (sent only as a header)");
await stub.close();

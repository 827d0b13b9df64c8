// nex doctor against Qwen2.5-Coder 0.5B on a busy 2-core llama-server (bench/eval): the prompt-cache
// probe sends a ~5,200-token prefix, which that server read at about 7 tokens a second; doctor waited
// over 30 minutes on it, holding the server's only core, and would have sent it a second time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { runDoctor } from "../../src/runtime/doctor/doctor.ts";
import { makeSandbox } from "../support/cli.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { hang, json, openaiText, openaiToolCall } from "../support/stub-scripts.ts";

test("a prompt-cache probe the server does not answer by the deadline is left unmeasured, said why, and not sent twice", async () => {
  const stub = await startStubEndpoint({
    routes: {
      "GET /models": json({ object: "list", data: [{ id: "m", object: "model" }] }),
    },
    scripts: [
      openaiText("ok"),
      openaiToolCall({ name: "record_word", args: { word: "ready" } }),
      openaiText("1 2 3", { finishReason: "length", usage: { input: 30, output: 5 } }),
      hang(),
      hang(),
    ],
  });
  const box = makeSandbox();
  const report = await runDoctor(
    { baseUrl: `${stub.url}/v1`, model: "m" },
    { ...box.env, NEX_FIRST_BYTE_TIMEOUT: "600" },
    box.workspace,
    { signal: new AbortController().signal, prefixDeadlineMs: 1500 },
  );
  await stub.close();
  const prefix = report.checks.find((check) => check.id === "prefix_cache");
  assert.equal(prefix?.status, "warn", JSON.stringify(prefix));
  assert.match(
    prefix?.found ?? "",
    /not measured: the server had not answered a ~5200-token prompt after \d+ s/,
  );
  assert.match(prefix?.next ?? "", /NEX_FIRST_BYTE_TIMEOUT/);
  assert.equal(stub.requestsTo("/v1/chat/completions").length, 4, "the prefix is sent once");
});

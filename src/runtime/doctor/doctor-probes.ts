// The model requests `nex doctor` sends once it has a model: streaming and the output limit, a tool
// call, a cut answer, a shared prefix twice, and Ollama's own facts.
import type { ModelRequest, ProviderError, StreamFn } from "../../protocol/index.ts";
import { terminatorName } from "../../providers/index.ts";
import { createClient, limitsFor, type NexConfig, wireFormatOf } from "../config/index.ts";
import {
  check,
  type DoctorCheck,
  judgeKeyFromProbe,
  PROBE_TOOL,
  PROBE_WORD,
  type ProbeResult,
  TRUNCATION_COUNT,
  TRUNCATION_MAX_TOKENS,
  timed,
} from "./doctor-checks.ts";
import type { DoctorOptions, DoctorRecorder, DoctorReport } from "./doctor-recorder.ts";
import {
  judgeLimits,
  judgeStreaming,
  judgeToolCall,
  judgeTruncation,
} from "./doctor-response-checks.ts";
import {
  judgeOllamaContext,
  judgePrefixCache,
  judgeReasoningParser,
  judgeToolParser,
  ollamaFacts,
} from "./doctor-server-checks.ts";
import { mayBeOtherApi, probeOtherApi, withApiHint } from "./doctor-wire-check.ts";

// Room for a reasoning model to think before a trivial call; a model that does not think stops far sooner.
const TOOL_PROBE_MAX_TOKENS = 1024;

/**
 * Checks the endpoint with `model`. `keyCheck` is null when the model list could not tell whether
 * the key works: the first request tells, and the model's verdict follows it.
 */
export async function probeEndpoint(
  config: NexConfig,
  rec: DoctorRecorder,
  model: string,
  keyCheck: DoctorCheck | null,
  choiceCheck: DoctorCheck,
  options: Pick<DoctorOptions, "signal" | "prefixDeadlineMs">,
): Promise<DoctorReport> {
  const { signal } = options;
  const overrides = { fetch: rec.counted, signal: signal };
  const limits = await limitsFor(config, model, overrides);
  if (signal.aborted) return rec.interrupted();
  const client = createClient(config, overrides);
  const probe = probeRunner(client, config, model, signal);

  // The most output nex will ever ask for (an escalated request): the endpoint must accept it.
  const streamed = await probe({
    user: "Reply with the single word: ok",
    maxTokens: limits.maxOutput,
  });
  if (signal.aborted) return rec.interrupted();
  if (!keyCheck) {
    const key = judgeKeyFromProbe(streamed, config.apiKeyEnv, config.apiKey !== null);
    rec.emit(key, choiceCheck);
    if (key.status === "fail") {
      rec.skipRest("skipped: the key was refused");
      return rec.report();
    }
  }
  // Nothing at the request's path: the server may speak the other OpenAI API.
  const otherApi =
    streamed.type === "error" && mayBeOtherApi(config, streamed.error)
      ? await probeOtherApi(config, model, rec.counted, signal)
      : null;
  if (signal.aborted) return rec.interrupted();
  rec.emit(
    timed(withApiHint(judgeStreaming(streamed, config.stream), otherApi, config), streamed.ms),
  );
  const limitsCheck = judgeLimits(limits, model, streamed);
  if (streamed.type === "error") {
    rec.emit(
      check("tool_calls", "skip", "skipped: a plain request failed; fix that first"),
      limitsCheck,
    );
    rec.skipRest("skipped: a plain request failed; fix that first");
    return rec.report();
  }

  const toolTurn = await probe({
    user: `Call the ${PROBE_TOOL} tool with word set to "${PROBE_WORD}". Do not reply with text.`,
    maxTokens: TOOL_PROBE_MAX_TOKENS,
    tools: true,
  });
  if (signal.aborted) return rec.interrupted();
  rec.emit(timed(judgeToolCall(toolTurn), toolTurn.ms), limitsCheck);
  if (toolTurn.type === "error" && toolTurn.error.retryable) {
    rec.skipRest("skipped: the endpoint is failing; fix that first");
    return rec.report();
  }

  const cut = await probe({
    user: `Write every whole number from 1 to ${TRUNCATION_COUNT} in digits, separated by single spaces, and nothing else.`,
    maxTokens: TRUNCATION_MAX_TOKENS,
  });
  if (signal.aborted) return rec.interrupted();
  rec.emit(timed(judgeTruncation(cut), cut.ms));
  rec.emit(judgeReasoningParser([streamed, toolTurn, cut]), judgeToolParser(toolTurn));

  // Two requests that share a long prefix: the second shows whether the server reuses it.
  // A server that reads prompts slowly (a small model on a busy CPU: a few tokens a second) would
  // spend many minutes, and its only core, on this prefix: past the deadline it is left unmeasured.
  const prefixed = async () => {
    const result = await probe({
      user: PREFIX_QUESTION,
      maxTokens: 16,
      system: PREFIX_TEXT,
      deadlineMs: options.prefixDeadlineMs ?? PREFIX_DEADLINE_MS,
    });
    return { result, ms: result.ms };
  };
  const first = await prefixed();
  if (signal.aborted) return rec.interrupted();
  const second = first.result.type === "error" ? first : await prefixed();
  if (signal.aborted) return rec.interrupted();
  rec.emit(judgePrefixCache(first, second, PREFIX_TOKENS));

  // Ollama's own API is asked only when discovery pointed at Ollama or did not get that far.
  const maybeOllama =
    config.provider === "openai" &&
    (limits.sourceDetail.includes("Ollama") || limits.source !== "endpoint");
  const facts = maybeOllama
    ? await ollamaFacts(rec.counted, config.baseUrl, model, signal, config.apiKey)
    : null;
  if (signal.aborted) return rec.interrupted();
  rec.emit(judgeOllamaContext(facts, limits.contextWindow));
  return rec.report();
}

// A prefix long enough for every cache to keep (Anthropic caches from 1,024 or 2,048 tokens).
const PREFIX_LINES = 400;
const PREFIX_TOKENS = PREFIX_LINES * 13;
const PREFIX_TEXT = [
  "You are being tested by a health check. Follow the instruction exactly.",
  ...Array.from(
    { length: PREFIX_LINES },
    (_, i) =>
      `Reference line ${i + 1}: both requests send this text unchanged, so a server can reuse it.`,
  ),
].join("\n");
const PREFIX_QUESTION = "Reply with the single word: ok";
const PREFIX_DEADLINE_MS = 60_000;

/** One probe: its prompt, its output limit, whether it offers the probe tool. */
interface ProbeSpec {
  user: string;
  maxTokens: number;
  tools?: boolean;
  system?: string;
  /** Give up on the probe after this long (a `timeout` error naming it). */
  deadlineMs?: number;
}

/** The tiny requests doctor sends, each one logical request under the normal retry policy, timed. */
function probeRunner(client: StreamFn, config: NexConfig, model: string, signal: AbortSignal) {
  let requestId = 0;
  const terminator = terminatorName(wireFormatOf(config, model), config.stream);
  return async (spec: ProbeSpec): Promise<ProbeResult & { ms: number }> => {
    const started = performance.now();
    const result = await probeOnce(spec);
    return { ...result, ms: performance.now() - started };
  };
  async function probeOnce(spec: ProbeSpec): Promise<ProbeResult> {
    const request: ModelRequest = {
      model,
      system:
        spec.system ?? "You are being tested by a health check. Follow the instruction exactly.",
      messages: [{ type: "user", text: spec.user }],
      tools: spec.tools ? [probeTool] : [],
      maxTokens: spec.maxTokens,
      requestId: ++requestId,
    };
    const deadline = spec.deadlineMs ? AbortSignal.timeout(spec.deadlineMs) : null;
    const within = deadline ? AbortSignal.any([signal, deadline]) : signal;
    for await (const event of client(request, within)) {
      if (event.type === "done") return { type: "turn", turn: event.turn, terminator };
      if (event.type === "error" && deadline?.aborted && !signal.aborted)
        return { type: "error", error: pastDeadline(spec.deadlineMs ?? 0) };
      if (event.type === "error") return { type: "error", error: event.error };
    }
    return {
      type: "error",
      error: {
        code: "invalid_response",
        retryable: false,
        message: "The stream ended without a result.",
      },
    };
  }
}

function pastDeadline(ms: number): ProviderError {
  return {
    code: "timeout",
    retryable: false,
    message: `no answer after ${Math.round(ms / 1000)} s, so doctor stopped waiting`,
  };
}

const probeTool = {
  name: PROBE_TOOL,
  description: "Records one word. Used by a health check.",
  parameters: {
    type: "object",
    properties: { word: { type: "string", description: "The word to record." } },
    required: ["word"],
    additionalProperties: false,
  },
};

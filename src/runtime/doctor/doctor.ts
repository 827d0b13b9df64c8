// `nex doctor`: checks an endpoint the way a user needs before trusting it, with the configuration
// `nex run` would use. A bounded number of requests: one model list, the window discovery GETs, three
// tiny model requests, two sharing a long prefix (does the server reuse it?), and Ollama's own two
// when the server may be Ollama; each under the normal retry policy, nothing more, every one counted.
import type { ModelRequest, ProviderError, StreamFn } from "../../protocol/index.ts";
import {
  fetchModelList,
  type HttpFetch,
  hostOf,
  redact,
  terminatorName,
} from "../../providers/index.ts";
import {
  createCommandSandbox,
  describeNetwork,
  describeSearch,
  networkMode,
  probeSandbox,
} from "../../tools/index.ts";
import { privateKind } from "../../web/index.ts";
import {
  type ConfigFlags,
  createClient,
  endpointFetch,
  limitsFor,
  type NexConfig,
  resolveConfig,
  wireFormatOf,
} from "../config/index.ts";
import {
  CHECK_ORDER,
  check,
  type DoctorCheck,
  judgeKeyFromList,
  judgeKeyFromProbe,
  judgeModel,
  judgeReachable,
  judgeSandbox,
  PROBE_TOOL,
  PROBE_WORD,
  type ProbeResult,
  TRUNCATION_COUNT,
  TRUNCATION_MAX_TOKENS,
  timed,
} from "./doctor-checks.ts";
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

export type { CheckId, CheckStatus, DoctorCheck } from "./doctor-checks.ts";

/** How to run the checks. */
export interface DoctorOptions {
  /** Aborts the request in flight (Ctrl-C); the remaining checks are skipped. */
  signal: AbortSignal;
  /** Called once the configuration is resolved, before any request. */
  onStart?: (target: DoctorTarget) => void;
  /** Called with each verdict as soon as it is known, in display order. */
  onCheck?: (check: DoctorCheck) => void;
  /** The HTTP client (default node:http); every call is counted. */
  fetch?: HttpFetch;
  /** How long the prompt-cache probe may take before it is left unmeasured (default 60 s). */
  prefixDeadlineMs?: number;
}

/** The endpoint under test, as configured. */
export interface DoctorTarget {
  provider: string;
  baseUrl: string;
  /** The model given (flag, NEX_MODEL or config), or null. */
  model: string | null;
}

/** Everything doctor found. */
export interface DoctorReport {
  provider: string;
  baseUrl: string;
  /** The model the checks used: given, or the only one served; null when none could be chosen. */
  model: string | null;
  checks: DoctorCheck[];
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Ctrl-C stopped the checks. */
  interrupted: boolean;
}

// Room for a reasoning model to think before a trivial call; a model that does not think stops far sooner.
const TOOL_PROBE_MAX_TOKENS = 1024;

// Time for the model list: long enough for a cold server, short enough for a dead one.
const LIST_TIMEOUT_MS = 10_000;

/** Runs the checks in order. Throws ConfigError for a configuration `nex run` would refuse too. */
export async function runDoctor(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  options: DoctorOptions,
): Promise<DoctorReport> {
  const config = resolveConfig(flags, env, cwd);
  let requests = 0;
  const base = options.fetch;
  const counted: HttpFetch = (url, init) => {
    requests++;
    return (base ?? endpointFetch(config))(url, init);
  };
  const checks: DoctorCheck[] = [];
  const report = (): DoctorReport => ({
    provider: config.provider,
    baseUrl: config.baseUrl,
    model,
    checks,
    requests,
    interrupted: options.signal.aborted,
  });
  // Every message is built without the key; this is the last line of defence should a server echo it.
  const secrets = config.apiKey ? [config.apiKey] : [];
  const emit = (...found: DoctorCheck[]) => {
    for (const raw of found) {
      const one = {
        ...raw,
        found: redact(raw.found, secrets),
        next: raw.next === null ? null : redact(raw.next, secrets),
      };
      checks.push(one);
      options.onCheck?.(one);
    }
  };
  const skipRest = (why: string) => {
    const done = new Set(checks.map((one) => one.id));
    emit(...CHECK_ORDER.filter((id) => !done.has(id)).map((id) => check(id, "skip", why)));
  };
  const interrupted = () => {
    skipRest("skipped: interrupted");
    return report();
  };
  let model: string | null = config.model;
  options.onStart?.({ provider: config.provider, baseUrl: config.baseUrl, model });
  const sandbox = createCommandSandbox(
    config.workspace,
    { ...config.sandbox, addressKind: privateKind },
    {
      platform: process.platform,
      path: env.PATH,
      uid: process.getuid?.() ?? -1,
      home: env.HOME,
    },
  );
  const sandboxProbe = await probeSandbox(sandbox, config.workspace, env);
  const state = sandbox.state();
  const network = describeNetwork(
    networkMode(config.sandbox, state.type === "active" ? state.backend : null),
  );
  emit(judgeSandbox(config.sandbox.mode, network, sandboxProbe));
  // grep and glob answer the same with either backend; which one runs is still worth knowing.
  emit(check("search", "pass", await describeSearch(config.workspace, env)));

  const listStarted = performance.now();
  const list = await fetchModelList({
    baseUrl: config.baseUrl,
    kind: config.provider,
    keyName: config.apiKeyEnv,
    timeoutMs: LIST_TIMEOUT_MS,
    signal: options.signal,
    fetch: counted,
    ...(config.apiKey ? { apiKey: config.apiKey } : {}),
  });
  if (list.type === "aborted") return interrupted();
  emit(timed(judgeReachable(list), performance.now() - listStarted));
  if (list.type === "unreachable") {
    skipRest(`skipped: ${hostOf(config.baseUrl)} is not reachable`);
    return report();
  }
  const keySet = config.apiKey !== null;
  const keyCheck = judgeKeyFromList(list, config.apiKeyEnv, keySet);
  if (keyCheck) emit(keyCheck);
  if (keyCheck?.status === "fail") {
    skipRest("skipped: the key was refused");
    return report();
  }
  const choice = judgeModel(list.models, model, list.status);
  model = choice.model;
  if (keyCheck) emit(choice.check);
  if (model === null) {
    if (!keyCheck)
      emit(check("key", "skip", "not known: no model to send a request to"), choice.check);
    skipRest("skipped: no model to check");
    return report();
  }

  const overrides = { fetch: counted, signal: options.signal };
  const limits = await limitsFor(config, model, overrides);
  if (options.signal.aborted) return interrupted();
  const client = createClient(config, overrides);
  const probe = probeRunner(client, config, model, options.signal);

  // The most output nex will ever ask for (an escalated request): the endpoint must accept it.
  const streamed = await probe({
    user: "Reply with the single word: ok",
    maxTokens: limits.maxOutput,
  });
  if (options.signal.aborted) return interrupted();
  if (!keyCheck) {
    const key = judgeKeyFromProbe(streamed, config.apiKeyEnv, keySet);
    emit(key, choice.check);
    if (key.status === "fail") {
      skipRest("skipped: the key was refused");
      return report();
    }
  }
  // Nothing at the request's path: the server may speak the other OpenAI API.
  const otherApi =
    streamed.type === "error" && mayBeOtherApi(config, streamed.error)
      ? await probeOtherApi(config, model, counted, options.signal)
      : null;
  if (options.signal.aborted) return interrupted();
  emit(timed(withApiHint(judgeStreaming(streamed, config.stream), otherApi, config), streamed.ms));
  const limitsCheck = judgeLimits(limits, model, streamed);
  if (streamed.type === "error") {
    emit(
      check("tool_calls", "skip", "skipped: a plain request failed; fix that first"),
      limitsCheck,
    );
    skipRest("skipped: a plain request failed; fix that first");
    return report();
  }

  const toolTurn = await probe({
    user: `Call the ${PROBE_TOOL} tool with word set to "${PROBE_WORD}". Do not reply with text.`,
    maxTokens: TOOL_PROBE_MAX_TOKENS,
    tools: true,
  });
  if (options.signal.aborted) return interrupted();
  emit(timed(judgeToolCall(toolTurn), toolTurn.ms), limitsCheck);
  if (toolTurn.type === "error" && toolTurn.error.retryable) {
    skipRest("skipped: the endpoint is failing; fix that first");
    return report();
  }

  const cut = await probe({
    user: `Write every whole number from 1 to ${TRUNCATION_COUNT} in digits, separated by single spaces, and nothing else.`,
    maxTokens: TRUNCATION_MAX_TOKENS,
  });
  if (options.signal.aborted) return interrupted();
  emit(timed(judgeTruncation(cut), cut.ms));
  emit(judgeReasoningParser([streamed, toolTurn, cut]), judgeToolParser(toolTurn));

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
  if (options.signal.aborted) return interrupted();
  const second = first.result.type === "error" ? first : await prefixed();
  if (options.signal.aborted) return interrupted();
  emit(judgePrefixCache(first, second, PREFIX_TOKENS));

  // Ollama's own API is asked only when discovery pointed at Ollama or did not get that far.
  const maybeOllama =
    config.provider === "openai" &&
    (limits.sourceDetail.includes("Ollama") || limits.source !== "endpoint");
  const facts = maybeOllama
    ? await ollamaFacts(counted, config.baseUrl, model, options.signal, config.apiKey)
    : null;
  if (options.signal.aborted) return interrupted();
  emit(judgeOllamaContext(facts, limits.contextWindow));
  return report();
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

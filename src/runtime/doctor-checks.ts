// The verdicts of `nex doctor`: each check's result, judged from what the endpoint answered. Pure
// functions; `doctor.ts` sends the requests.
import type { AssembledTurn, ProviderError } from "../protocol/index.ts";
import { plainText } from "../protocol/index.ts";
import type { ModelListAnswer } from "../providers/index.ts";
import type { ResolvedLimits } from "./model-registry.ts";

/** How one check came out; `skip` when an earlier failure made it pointless. */
export type CheckStatus = "pass" | "warn" | "fail" | "skip";

/** The checks, in the order they are shown. */
export type CheckId =
  | "reachable"
  | "key"
  | "model"
  | "streaming"
  | "tool_calls"
  | "limits"
  | "truncation";

/** One verdict: what was found and, unless it passed, what to do next. */
export interface DoctorCheck {
  id: CheckId;
  title: string;
  status: CheckStatus;
  found: string;
  next: string | null;
}

/** Titles, in display order. */
export const CHECK_TITLES: Record<CheckId, string> = {
  reachable: "endpoint reachable",
  key: "key accepted",
  model: "model exists",
  streaming: "streaming works",
  tool_calls: "tool calls work",
  limits: "context window and output limit",
  truncation: "truncation reported honestly",
};

/** Check ids in display order. */
export const CHECK_ORDER = Object.keys(CHECK_TITLES) as CheckId[];

/** A probe request's outcome: the assembled turn, or the error the normal retry policy ended with. */
export type ProbeResult =
  | { type: "turn"; turn: AssembledTurn; terminator: string }
  | { type: "error"; error: ProviderError };

/** The word the tool probe asks the model to pass. */
export const PROBE_WORD = "ready";
/** The tool the tool probe offers. */
export const PROBE_TOOL = "record_word";
/** The `max_tokens` of the truncation probe: far less than the answer it asks for. */
export const TRUNCATION_MAX_TOKENS = 5;
/** The truncation probe asks for the numbers up to this one; a whole answer ends with it. */
export const TRUNCATION_COUNT = 300;

export function check(
  id: CheckId,
  status: CheckStatus,
  found: string,
  next: string | null = null,
): DoctorCheck {
  return { id, title: CHECK_TITLES[id], status, found, next };
}

/** Verdict 1 from the model list request; null when it was answered (reachable passes). */
export function judgeReachable(answer: ModelListAnswer): DoctorCheck {
  if (answer.type === "unreachable") {
    const tls = answer.code !== null && /CERT|SSL|TLS|SIGNATURE/i.test(answer.code);
    const next = tls
      ? "The TLS handshake failed: check the certificate (or use http:// for a local server without TLS)."
      : answer.code === "timeout"
        ? "Check that the server is running and not overloaded, and that no firewall drops the connection."
        : "Check that the server is running and that the base URL (host and port) is right.";
    return check("reachable", "fail", answer.message, next);
  }
  const status = answer.type === "answered" ? answer.status : 0;
  return check("reachable", "pass", `GET ${pathOf(answerUrl(answer))} answered HTTP ${status}`);
}

/** Verdict 2; null when the model list cannot tell (it failed otherwise), so a model request must. */
export function judgeKeyFromList(
  answer: Extract<ModelListAnswer, { type: "answered" }>,
  keyEnv: string,
  keySet: boolean,
): DoctorCheck | null {
  if (answer.error?.code === "auth") return keyRefused(answer.error, keyEnv, keySet);
  if (answer.status >= 200 && answer.status < 300) {
    return check(
      "key",
      "pass",
      keySet
        ? `the key from ${keyEnv} was accepted`
        : "no key is set, and the endpoint did not ask for one",
    );
  }
  return null;
}

/** Verdict 2 from a model request, when the model list could not tell. */
export function judgeKeyFromProbe(
  probe: ProbeResult,
  keyEnv: string,
  keySet: boolean,
): DoctorCheck {
  if (probe.type === "error" && probe.error.code === "auth")
    return keyRefused(probe.error, keyEnv, keySet);
  if (probe.type === "error") {
    return check(
      "key",
      "warn",
      "not known: neither the model list nor the model request got far enough to tell",
      "Fix the failure shown below, then run nex doctor again.",
    );
  }
  return check(
    "key",
    "pass",
    keySet
      ? `the key from ${keyEnv} was accepted by a model request`
      : "no key is set, and the endpoint did not ask for one",
  );
}

function keyRefused(error: ProviderError, keyEnv: string, keySet: boolean): DoctorCheck {
  const status = error.status ?? 401;
  return check(
    "key",
    "fail",
    keySet
      ? `the endpoint refused the key from ${keyEnv} (HTTP ${status})`
      : `no key is set, and the endpoint requires one (HTTP ${status})`,
    keySet
      ? `Check that ${keyEnv} holds a valid key for this endpoint, and that the base URL points at the server the key belongs to.`
      : `Set ${keyEnv} to your API key (it is read from the environment and never written anywhere).`,
  );
}

/** What the model check decided: the verdict, and the model the next requests use (null: stop here). */
export interface ModelChoice {
  check: DoctorCheck;
  model: string | null;
}

/** Verdict 3: the model named, or the only one served, against the endpoint's list. */
export function judgeModel(
  models: string[] | null,
  given: string | null,
  status: number,
): ModelChoice {
  const shown = (list: string[]) =>
    `${list.slice(0, 20).join(", ")}${list.length > 20 ? `, ... (${list.length} in all)` : ""}`;
  if (models === null) {
    if (given === null) {
      return {
        model: null,
        check: check(
          "model",
          "fail",
          `no model given, and the endpoint does not list its models (GET /models: HTTP ${status})`,
          "Pass --model NAME (or set NEX_MODEL, or `model` in the config file).",
        ),
      };
    }
    return {
      model: given,
      check: check(
        "model",
        "warn",
        `the endpoint does not list its models (GET /models: HTTP ${status}); the requests below use ${given}`,
        "If the requests below fail with an unknown model, check the name against the server's documentation.",
      ),
    };
  }
  if (given !== null) {
    if (models.includes(given))
      return { model: given, check: check("model", "pass", `${given} is served`) };
    return {
      model: null,
      check: check(
        "model",
        "fail",
        models.length === 0
          ? `${given} is not served: the endpoint lists no models`
          : `${given} is not served; the endpoint serves: ${shown(models)}`,
        models.length === 0
          ? "Load a model on the server, then run nex doctor again."
          : "Pass one of these with --model NAME (or NEX_MODEL, or `model` in the config file).",
      ),
    };
  }
  const [only] = models;
  if (models.length === 1 && only) {
    return {
      model: only,
      check: check("model", "pass", `no model given; using ${only}, the only model served`),
    };
  }
  return {
    model: null,
    check: check(
      "model",
      "fail",
      models.length === 0
        ? "no model given, and the endpoint lists none"
        : `no model given, and the endpoint serves ${models.length}: ${shown(models)}`,
      models.length === 0
        ? "Load a model on the server, or pass --model NAME."
        : "Pass one with --model NAME (or set NEX_MODEL, or `model` in the config file).",
    ),
  };
}

/** Verdict 4: a tiny request ends with a proper finish reason and the stream's terminator. */
export function judgeStreaming(probe: ProbeResult, streaming: boolean): DoctorCheck {
  const mode = streaming ? "" : "streaming is off (`stream: false` in the config); ";
  if (probe.type === "error") {
    return check("streaming", "fail", `${mode}${probe.error.message}`, nextForError(probe.error));
  }
  const { turn, terminator } = probe;
  if (!turn.terminated) {
    return check(
      "streaming",
      "fail",
      `${mode}the response ended without its terminator (${terminator})`,
      'nex treats every tool call from such a response as cut and runs none. Check any proxy between nex and the server (it may cut or buffer event streams); `"stream": false` in the config asks for whole responses.',
    );
  }
  if (turn.rawStopReason === null) {
    return check(
      "streaming",
      "fail",
      `${mode}the response ended with ${terminator} but no finish reason`,
      'nex refuses tool calls from responses without a finish reason. Update the server, or try `"stream": false` in the config.',
    );
  }
  const usage = turn.usage
    ? `usage ${turn.usage.inputTokens} in / ${turn.usage.outputTokens} out`
    : "no usage";
  const found = `${mode}finish reason \`${turn.rawStopReason}\`, ${terminator}, ${usage}, ${turn.text.length} characters of text`;
  if (turn.stopReason === "content_filter" || turn.stopReason === "other") {
    return check(
      "streaming",
      "warn",
      found,
      `The finish reason \`${turn.rawStopReason}\` is not a normal end; nex refuses tool calls that end this way.`,
    );
  }
  if (!turn.usage) {
    return check(
      "streaming",
      "warn",
      found,
      "Without usage nex estimates token counts itself and cannot compare output to max_tokens; enable usage in streams on the server if it can.",
    );
  }
  return check("streaming", "pass", found);
}

/** Verdict 5: one trivial tool call comes back whole and strictly parsed. */
export function judgeToolCall(probe: ProbeResult): DoctorCheck {
  if (probe.type === "error") {
    return check(
      "tool_calls",
      "fail",
      probe.error.message,
      `The endpoint rejected a request with a tool definition. ${TOOL_SUPPORT_HINT}`,
    );
  }
  const [call] = probe.turn.toolCalls;
  if (!call) {
    const said = plainText(probe.turn.text).replace(/\s+/g, " ").trim().slice(0, 80);
    return check(
      "tool_calls",
      "warn",
      `the model answered in text instead of calling the tool${said ? `: "${said}"` : ""}`,
      `nex works through tool calls. ${TOOL_SUPPORT_HINT}`,
    );
  }
  if (call.verdict.type === "poisoned") {
    return check(
      "tool_calls",
      "fail",
      `the call to ${call.name || "(no name)"} arrived malformed: ${call.verdict.reason}`,
      `nex refuses such calls (nothing runs) and tells the model; with every call malformed, it cannot work. ${TOOL_SUPPORT_HINT}`,
    );
  }
  const args = plainText(call.argumentsText).slice(0, 80);
  if (call.name !== PROBE_TOOL || call.verdict.args.word !== PROBE_WORD) {
    return check(
      "tool_calls",
      "warn",
      `a whole call came back, but not the one asked for: ${call.name || "(no name)"} ${args}`,
      "The model may be weak at following tool instructions; try a larger or instruction-tuned model.",
    );
  }
  if (call.verdict.recovery !== "strict") {
    return check(
      "tool_calls",
      "warn",
      `${call.name} ${args} arrived wrapped (${call.verdict.recovery === "fence" ? "in a code fence" : "inside other text"}); nex read it without changing a byte`,
      "Calls that need unwrapping are a sign of a loose tool-call parser on the server; check its tool-call settings.",
    );
  }
  return check("tool_calls", "pass", `${call.name} ${args}, whole and strictly parsed`);
}

const TOOL_SUPPORT_HINT =
  "Check that the server has tool calling turned on for this model (vLLM: --enable-auto-tool-choice and a --tool-call-parser; llama.cpp: --jinja; Ollama and LM Studio: a model with tool support).";

/** Verdict 6: the window and where it came from, and whether the output limit was accepted. */
export function judgeLimits(
  limits: ResolvedLimits,
  model: string,
  probe: ProbeResult,
): DoctorCheck {
  const window = `window ${limits.contextWindow} tokens ${limits.sourceDetail}`;
  if (
    probe.type === "error" &&
    (probe.error.code === "bad_request" || probe.error.code === "context_length")
  ) {
    return check(
      "limits",
      "fail",
      `${window}; a request with max_tokens ${limits.maxOutput} was refused: ${probe.error.message}`,
      `If the server allows less output, set "models": { "${model}": { "maxOutput": N } } in the config file (and "contextWindow" if the window is smaller).`,
    );
  }
  const output =
    probe.type === "turn"
      ? `output limit ${limits.maxOutput} tokens, accepted as max_tokens`
      : `output limit ${limits.maxOutput} tokens (not confirmed: the request failed)`;
  const found = `${window}; ${output}`;
  if (limits.source === "default") {
    return check(
      "limits",
      "warn",
      found,
      `Set "models": { "${model}": { "contextWindow": N } } in the config file to the window the server runs with.`,
    );
  }
  return check("limits", "pass", found);
}

/** Verdict 7: an answer cut by a tiny max_tokens must end with `length` / `max_tokens`. */
export function judgeTruncation(probe: ProbeResult): DoctorCheck {
  if (probe.type === "error") {
    return check(
      "truncation",
      "warn",
      `could not be tested: ${probe.error.message}`,
      "Fix the failure above and run nex doctor again.",
    );
  }
  const { turn } = probe;
  const raw = turn.rawStopReason ?? "(none)";
  const outputTokens = turn.usage?.outputTokens ?? null;
  const usage =
    outputTokens === null ? "no usage reported" : `usage says ${outputTokens} output tokens`;
  if (turn.stopReason === "length") {
    return check(
      "truncation",
      "pass",
      `an answer cut at max_tokens ${turn.maxTokens} ended with \`${raw}\` (${usage})`,
    );
  }
  const hitLimit = outputTokens !== null && outputTokens >= turn.maxTokens;
  const incomplete = !turn.text.includes(String(TRUNCATION_COUNT));
  const normal = turn.stopReason === "stop" || turn.stopReason === "tool_calls";
  if (normal && hitLimit) {
    return check(
      "truncation",
      "fail",
      `an answer cut at max_tokens ${turn.maxTokens} (${usage}) ended with \`${raw}\`, as if it were complete`,
      "The endpoint (or a gateway in front of it) relabels cut output as a normal stop. nex will rely on usage vs max_tokens to detect truncation, so a cut tool call is still refused; keep usage reporting on, and report the relabelling to the server's or gateway's maintainers.",
    );
  }
  if (normal && outputTokens === null && incomplete) {
    return check(
      "truncation",
      "fail",
      `an answer cut at max_tokens ${turn.maxTokens} ended with \`${raw}\`, as if it were complete, and no usage was reported`,
      "The endpoint relabels cut output as a normal stop and reports no usage, so nex cannot tell a cut answer from a finished one: a cut tool call is still refused when its arguments do not parse, but a cut text answer looks complete. Turn on usage reporting (stream usage) on the server, and report the relabelling to its maintainers.",
    );
  }
  if (normal) {
    return check(
      "truncation",
      "warn",
      `the model stopped on its own (\`${raw}\`, ${usage}) below max_tokens ${turn.maxTokens}, so truncation could not be observed`,
      "Nothing to fix in nex; run nex doctor again, or with another model, to see truncation reported.",
    );
  }
  return check(
    "truncation",
    "warn",
    `an answer cut at max_tokens ${turn.maxTokens} ended with \`${raw}\` (${usage})`,
    `\`${raw}\` is not a length stop; nex refuses tool calls that end this way, and relies on usage vs max_tokens to detect truncation.`,
  );
}

/** What to do after a model request failed, from its error code. */
function nextForError(error: ProviderError): string {
  switch (error.code) {
    case "rate_limited":
      return "The endpoint is rate limiting; wait and run nex doctor again.";
    case "not_found":
      return "Check the base URL (OpenAI-compatible servers usually end in /v1) and the model name.";
    case "bad_request":
      return "Read the server's message above: it usually names the setting it refused.";
    case "timeout":
    case "network":
    case "server_error":
      return "The server failed or stalled; check its logs, then run nex doctor again.";
    default:
      return "Read the message above, fix what it names, and run nex doctor again.";
  }
}

function answerUrl(answer: ModelListAnswer): string {
  return answer.type === "answered" ? answer.url : "";
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "/models";
  }
}

// The checks of `nex doctor`, their order and titles, and the verdicts on reaching the endpoint:
// reachable, key, model (the model requests' verdicts are in doctor-response-checks.ts). Pure
// functions; `doctor.ts` sends the requests.
import type { AssembledTurn, ProviderError } from "../../protocol/index.ts";
import type { ModelListAnswer } from "../../providers/index.ts";
import type { SandboxMode, SandboxProbe } from "../../tools/index.ts";

/** How one check came out; `skip` when an earlier failure made it pointless. */
export type CheckStatus = "pass" | "warn" | "fail" | "skip";

/** The checks, in the order they are shown. */
export type CheckId =
  | "sandbox"
  | "search"
  | "reachable"
  | "key"
  | "model"
  | "streaming"
  | "tool_calls"
  | "limits"
  | "truncation"
  | "reasoning_parser"
  | "tool_parser"
  | "prefix_cache"
  | "ollama_context";

/** One verdict: what was found and, unless it passed, what to do next. */
export interface DoctorCheck {
  id: CheckId;
  title: string;
  status: CheckStatus;
  found: string;
  next: string | null;
  /** How long the request behind this verdict took, when one request decided it. */
  ms?: number;
}

/** The verdict with how long its request took, in its words and as a figure. */
export function timed(verdict: DoctorCheck, ms: number): DoctorCheck {
  const took = ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
  return { ...verdict, found: `${verdict.found} (took ${took})`, ms: Math.round(ms) };
}

/** Titles, in display order. */
export const CHECK_TITLES: Record<CheckId, string> = {
  sandbox: "commands sandboxed",
  search: "file search backend",
  reachable: "endpoint reachable",
  key: "key accepted",
  model: "model exists",
  streaming: "streaming works",
  tool_calls: "tool calls work",
  limits: "context window and output limit",
  truncation: "truncation reported honestly",
  reasoning_parser: "reasoning apart from the answer",
  tool_parser: "tool calls parsed by the server",
  prefix_cache: "prompt prefix reused",
  ollama_context: "Ollama context size",
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

/** A verdict with the check's title filled in. */
export function check(
  id: CheckId,
  status: CheckStatus,
  found: string,
  next: string | null = null,
): DoctorCheck {
  return { id, title: CHECK_TITLES[id], status, found, next };
}

/** Verdict 0, from starting one empty command under the sandbox (no request to the endpoint). */
export function judgeSandbox(
  mode: SandboxMode,
  /** The commands' network in words (`describeNetwork`): none, all, or the allowed hosts. */
  network: string,
  probe: SandboxProbe,
): DoctorCheck {
  switch (probe.type) {
    case "off":
      return check(
        "sandbox",
        "warn",
        "sandbox off: commands run unconfined and can change anything your user can",
        'remove "sandbox": "off" from the config (or --sandbox off) unless you approve every command yourself',
      );
    case "unavailable":
      return check(
        "sandbox",
        "fail",
        `the ${mode} sandbox cannot start here: ${probe.reason}; nex asks before every command and refuses them headless`,
        probe.fix,
      );
    case "broken":
      return check(
        "sandbox",
        "fail",
        `the ${mode} sandbox failed to start a command: ${probe.error}`,
        'check that `bwrap --ro-bind / / true` works here (user namespaces, a container\'s seccomp profile), or set "sandbox": "off"',
      );
    case "works":
      return check(
        "sandbox",
        "pass",
        `${mode} with ${probe.backend}, ${network}, ${probe.processLimit}; a command starts in ${Math.round(probe.startMs)} ms`,
      );
  }
}

/** Verdict 1, from the model list request: any HTTP answer means the endpoint is reachable. */
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

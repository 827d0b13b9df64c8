// `nex doctor`'s checks of how the server is set up: its reasoning parser, its tool-call parser,
// whether it reuses a cached prompt prefix, and Ollama's context size. Pure verdicts, except
// `ollamaFacts`, which asks Ollama's own API.
import type { HttpFetch } from "../../providers/index.ts";
import { check, type DoctorCheck, type ProbeResult } from "./doctor-checks.ts";

const REASONING_FIX =
  "Turn on the server's reasoning parser: vLLM --reasoning-parser (deepseek_r1, qwen3, ... for the model), SGLang --reasoning-parser, llama.cpp --jinja with --reasoning-format deepseek. nex splits <think> out of the answer, but a server that parses it sends it apart and drops it from history itself.";

/** The reasoning parser: reasoning in its own field, or leaking into the answer as `<think>`. */
export function judgeReasoningParser(probes: ProbeResult[]): DoctorCheck {
  const turns = probes.flatMap((p) => (p.type === "turn" ? [p.turn] : []));
  if (turns.length === 0) return check("reasoning_parser", "skip", "skipped: no answer to look at");
  if (turns.some((turn) => turn.reasoningInContent)) {
    return check(
      "reasoning_parser",
      "warn",
      "the model's reasoning came inside the answer as <think>…</think> text, not in a field of its own",
      REASONING_FIX,
    );
  }
  const reasoned = turns.find((turn) => turn.reasoning);
  return reasoned
    ? check(
        "reasoning_parser",
        "pass",
        `reasoning arrives apart from the answer (${reasoned.reasoning?.length ?? 0} characters)`,
      )
    : check(
        "reasoning_parser",
        "pass",
        "no reasoning in the answers (the model did not think aloud), and none leaked into them",
      );
}

// Tool-call markup of common formats, and the vLLM parser that reads each.
const TOOL_MARKUP: Array<[RegExp, string]> = [
  [/<tool_call>/i, "hermes"],
  [/<function=[\w.-]+>/i, "qwen3_coder"],
  [/<\|tool_calls?_(?:begin|section_begin)\|>/i, "deepseek_v3 (or kimi_k2)"],
  [/\[TOOL_CALLS\]/, "mistral"],
  [/<\|python_tag\|>/, "llama3_json"],
  [/\[TOOL_REQUEST\]/, "(LM Studio's default format: load a model with native tool support)"],
];

/** The tool-call parser: a call must arrive as a call, never as markup in the answer's text. */
export function judgeToolParser(probe: ProbeResult): DoctorCheck {
  if (probe.type === "error")
    return check("tool_parser", "skip", "skipped: the tool request failed");
  const text = probe.turn.text;
  const found = TOOL_MARKUP.find(([marker]) => marker.test(text));
  if (found) {
    const [marker, parser] = found;
    return check(
      "tool_parser",
      "fail",
      `tool-call markup (${marker.source.replace(/\\/g, "")}) leaked into the answer's text: the server does not parse this model's tool calls, so nex could run none of them`,
      parser.startsWith("(")
        ? `LM Studio could not parse the call ${parser.slice(1, -1)}.`
        : `Start vLLM with --enable-auto-tool-choice --tool-call-parser ${parser}; llama.cpp with --jinja; or use a chat template that supports tools.`,
    );
  }
  return probe.turn.toolCalls.length > 0
    ? check("tool_parser", "pass", "the call arrived as a tool call, with no markup in the text")
    : check("tool_parser", "pass", "no tool-call markup in the answer's text");
}

/** One of the two prefix-cache requests: its outcome and how long it took. */
export interface TimedProbe {
  result: ProbeResult;
  ms: number;
}

/**
 * Prefix-cache reuse, from two requests sharing a long prefix: the second's cached tokens when the
 * server reports them, else the timing (a server that reuses the prefix answers the second far sooner).
 */
export function judgePrefixCache(
  first: TimedProbe,
  second: TimedProbe,
  prefixTokens: number,
): DoctorCheck {
  if (first.result.type === "error" && first.result.error.code === "timeout") {
    return check(
      "prefix_cache",
      "warn",
      `not measured: the server had not answered a ~${prefixTokens}-token prompt after ${(first.ms / 1000).toFixed(0)} s, so doctor stopped waiting (it reads prompts slowly)`,
      "nex's first request of a session is about 2,400 tokens: on this server it takes minutes unless the server reuses the prompt's prefix from the last request (llama.cpp does by default). Raise NEX_FIRST_BYTE_TIMEOUT if requests time out; a smaller model or fewer threads competing for the cores reads faster.",
    );
  }
  if (first.result.type === "error" || second.result.type === "error") {
    const failed = first.result.type === "error" ? first.result : second.result;
    return check(
      "prefix_cache",
      "skip",
      `skipped: a request failed (${failed.type === "error" ? failed.error.message : ""})`,
    );
  }
  const usage = second.result.turn.usage;
  if (usage?.cacheReadTokens !== undefined && usage.cacheReadTokens > 0) {
    return check(
      "prefix_cache",
      "pass",
      `the server reused ${usage.cacheReadTokens} cached prompt tokens of the ~${prefixTokens}-token prefix the two requests share`,
    );
  }
  const faster = second.ms < first.ms * 0.5 && first.ms - second.ms > 200;
  if (faster) {
    return check(
      "prefix_cache",
      "pass",
      `the second request took ${Math.round(second.ms)} ms against ${Math.round(first.ms)} ms: the server seems to reuse the shared prefix (it reports no cached tokens)`,
    );
  }
  const reported = usage?.cacheReadTokens === 0 || usage?.cacheWriteTokens !== undefined;
  return check(
    "prefix_cache",
    "warn",
    reported
      ? `the server read no cached tokens for a ~${prefixTokens}-token prefix it had just seen: each request of a session pays for its whole prompt again`
      : `no sign of reuse: no cached tokens reported, and the second request took ${Math.round(second.ms)} ms against ${Math.round(first.ms)} ms`,
    "Turn prefix caching on: vLLM --enable-prefix-caching (on by default since V1), SGLang's radix cache (on unless --disable-radix-cache), llama.cpp --cache-reuse 256 with enough slots' context; Ollama reuses the prefix of the loaded model's last request. nex keeps each request's prompt byte for byte the same as the last one's, so a cache can help.",
  );
}

/** What Ollama says of the model's context: as loaded, as configured, and its maximum. */
export interface OllamaFacts {
  loadedContext: number | null;
  numCtx: number | null;
  maxContext: number | null;
}

/** Ollama's own API beside its OpenAI-compatible one; null when the server is not Ollama. */
export async function ollamaFacts(
  fetch: HttpFetch,
  baseUrl: string,
  model: string,
  signal: AbortSignal,
  apiKey: string | null,
): Promise<OllamaFacts | null> {
  const root = baseUrl.replace(/\/v1\/?$/, "");
  const ask = async (method: string, path: string, body?: object): Promise<unknown> => {
    try {
      const response = await fetch(`${root}${path}`, {
        method,
        headers: {
          "content-type": "application/json",
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.any([signal, AbortSignal.timeout(3000)]),
      });
      let text = "";
      const decoder = new TextDecoder();
      for await (const chunk of response.body ?? []) {
        text += decoder.decode(chunk, { stream: true });
        if (text.length > 1 << 20) return null;
      }
      return response.ok ? JSON.parse(text) : null;
    } catch {
      return null;
    }
  };
  const ps = (await ask("GET", "/api/ps")) as { models?: Record<string, unknown>[] } | null;
  if (!ps || !Array.isArray(ps.models)) return null;
  const loaded = ps.models.find((m) => m.name === model || m.model === model);
  const shown = (await ask("POST", "/api/show", { model })) as {
    parameters?: unknown;
    model_info?: Record<string, unknown>;
  } | null;
  const numCtx =
    typeof shown?.parameters === "string"
      ? Number(/(?:^|\n)\s*num_ctx\s+(\d+)/.exec(shown.parameters)?.[1] ?? Number.NaN)
      : Number.NaN;
  const maxKey = Object.keys(shown?.model_info ?? {}).find((k) => k.endsWith(".context_length"));
  const max = maxKey ? shown?.model_info?.[maxKey] : undefined;
  return {
    loadedContext: typeof loaded?.context_length === "number" ? loaded.context_length : null,
    numCtx: Number.isFinite(numCtx) ? numCtx : null,
    maxContext: typeof max === "number" ? max : null,
  };
}

const OLLAMA_FIX = (window: number) =>
  `Give Ollama a context of at least ${window} tokens: OLLAMA_CONTEXT_LENGTH=${window} for \`ollama serve\`, or a model made with \`PARAMETER num_ctx ${window}\`; or set "contextWindow" for this model in nex's config to what Ollama serves.`;

/** Ollama's context against the window nex would use: a smaller num_ctx silently cuts the prompt. */
export function judgeOllamaContext(facts: OllamaFacts | null, window: number): DoctorCheck {
  if (!facts) return check("ollama_context", "skip", "not Ollama: nothing to check");
  const served = facts.loadedContext ?? facts.numCtx;
  if (served !== null && served < window) {
    return check(
      "ollama_context",
      "warn",
      `Ollama serves this model with ${served} tokens of context (${facts.loadedContext !== null ? "as loaded" : "num_ctx"}), less than the ${window} nex would use: Ollama drops the start of a longer prompt without saying so`,
      OLLAMA_FIX(window),
    );
  }
  if (served === null) {
    return check(
      "ollama_context",
      "warn",
      `the model is not loaded and sets no num_ctx: Ollama will load it with its default context (a few thousand tokens unless OLLAMA_CONTEXT_LENGTH is set), perhaps less than the ${window} nex would use${facts.maxContext ? ` (the model can take ${facts.maxContext})` : ""}`,
      OLLAMA_FIX(window),
    );
  }
  return check(
    "ollama_context",
    "pass",
    `Ollama serves ${served} tokens of context, enough for the ${window} nex uses`,
  );
}

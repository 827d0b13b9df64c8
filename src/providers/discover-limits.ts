// Asks the endpoint itself how large the model's context window is. A side request: a few quick
// probes, one attempt each, a short timeout, and null on any failure (the runtime reports its fallback).
//   vLLM:      GET /v1/models            data[].max_model_len
//   OpenRouter and others: GET /v1/models data[].context_length
//   llama.cpp: GET /props                default_generation_settings.n_ctx (per slot, i.e. effective)
//   LM Studio: GET /api/v0/models        loaded_context_length, else max_context_length
//   Ollama:    GET /api/ps               context_length of the loaded model (effective), else
//              POST /api/show            `num_ctx` in parameters, else model_info["<arch>.context_length"]

import { trimSlash } from "./client-config.ts";
import { describeFetchError, type HttpFetch, httpFetch, readText } from "./http/index.ts";
import { fetchModelList, sideRequestHeaders } from "./model-list.ts";
import { isObject } from "./turns/index.ts";

/** Where to look, and with which key. */
export interface DiscoverOptions {
  baseUrl: string;
  apiKey?: string;
  model: string;
  kind: "openai" | "anthropic";
  signal?: AbortSignal;
  fetch?: HttpFetch;
  /** Per probe; default 2000. */
  timeoutMs?: number;
  /** Told when the first probe could not reach the server at all (refused, DNS, TLS), in plain words; not on a timeout. */
  onUnreachable?: (detail: string) => void;
}

/** A context window the endpoint stated, and which field said so. */
export interface DiscoveredWindow {
  contextWindow: number;
  source: string;
}

type Probe = () => Promise<DiscoveredWindow | null>;

// A model list or props document is a few KB; anything far larger is not what a probe asked for.
const MAX_PROBE_BYTES = 4 * 2 ** 20;

export async function discoverContextWindow(
  options: DiscoverOptions,
): Promise<DiscoveredWindow | null> {
  try {
    const base = trimSlash(options.baseUrl);
    const root = base.replace(/\/v1$/, "");
    const apiBase = options.kind === "openai" ? base : `${root}/v1`;
    const get = requester(options);

    const models = await get("GET", `${apiBase}/models`, undefined, options.onUnreachable);
    const entry = modelEntry(models, options.model);
    const fromList = fromModelsList(entry);
    if (fromList) return fromList;

    const llama: Probe = () => fromLlamaProps(get, root);
    const lmStudio: Probe = () => fromLmStudio(get, root, options.model);
    const ollama: Probe = () => fromOllama(get, root, options.model);
    const ownedBy = entry && typeof entry.owned_by === "string" ? entry.owned_by : "";
    const port = portOf(root);
    let probes: Probe[];
    if (ownedBy === "llamacpp" || (entry && isObject(entry.meta))) probes = [llama];
    else if (port === "11434" || ownedBy === "library" || ownedBy === "ollama") probes = [ollama];
    else if (port === "1234") probes = [lmStudio];
    else if (options.kind === "anthropic") probes = [];
    else probes = [llama, lmStudio, ollama];
    const found = await Promise.all(probes.map((probe) => probe().catch(() => null)));
    return found.find((window) => window !== null) ?? null;
  } catch {
    return null;
  }
}

/**
 * The model ids the endpoint serves (`GET /v1/models`), for choosing a model when none was given.
 * One quick GET, no retries; null when the endpoint does not say.
 */
export async function listModels(
  options: Omit<DiscoverOptions, "model">,
): Promise<string[] | null> {
  const answer = await fetchModelList(options);
  return answer.type === "answered" ? answer.models : null;
}

type Get = (
  method: "GET" | "POST",
  url: string,
  body?: unknown,
  onNoAnswer?: (detail: string) => void,
) => Promise<unknown>;

function requester(options: DiscoverOptions): Get {
  const doFetch = options.fetch ?? httpFetch;
  const headers = sideRequestHeaders(options.kind, options.apiKey);
  return async (method, url, body, onNoAnswer) => {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 2000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const response = await doFetch(url, {
        method,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal,
      });
      const text = await readText(response.body, MAX_PROBE_BYTES);
      if (!response.ok || text === null) return null;
      return JSON.parse(text);
    } catch (error) {
      // Only a server that cannot be reached is unreachable: a slow one (busy loading a model, or a
      // loaded machine) may still answer the real request, whose own timeouts then speak.
      if (onNoAnswer && !options.signal?.aborted && !timeout.aborted) {
        onNoAnswer(describeFetchError(error));
      }
      return null;
    }
  };
}

function modelEntry(list: unknown, model: string): Record<string, unknown> | null {
  if (!isObject(list) || !Array.isArray(list.data)) return null;
  const entries = list.data.filter(isObject);
  const named = entries.find((entry) => entry.id === model);
  if (named) return named;
  // llama.cpp serves one model under whatever name the client uses.
  return entries.length === 1 ? (entries[0] ?? null) : null;
}

function fromModelsList(entry: Record<string, unknown> | null): DiscoveredWindow | null {
  if (!entry) return null;
  if (positive(entry.max_model_len)) {
    return { contextWindow: entry.max_model_len, source: "GET /v1/models max_model_len (vLLM)" };
  }
  if (positive(entry.context_length)) {
    return { contextWindow: entry.context_length, source: "GET /v1/models context_length" };
  }
  return null;
}

async function fromLlamaProps(get: Get, root: string): Promise<DiscoveredWindow | null> {
  const props = await get("GET", `${root}/props`);
  if (!isObject(props)) return null;
  const settings = isObject(props.default_generation_settings)
    ? props.default_generation_settings
    : {};
  const nCtx = positive(settings.n_ctx)
    ? settings.n_ctx
    : positive(props.n_ctx)
      ? props.n_ctx
      : null;
  return nCtx === null ? null : { contextWindow: nCtx, source: "GET /props n_ctx (llama.cpp)" };
}

async function fromLmStudio(
  get: Get,
  root: string,
  model: string,
): Promise<DiscoveredWindow | null> {
  const list = await get("GET", `${root}/api/v0/models`);
  const entry = modelEntry(list, model);
  if (!entry) return null;
  if (positive(entry.loaded_context_length)) {
    return {
      contextWindow: entry.loaded_context_length,
      source: "GET /api/v0/models loaded_context_length (LM Studio)",
    };
  }
  if (positive(entry.max_context_length)) {
    return {
      contextWindow: entry.max_context_length,
      source:
        "GET /api/v0/models max_context_length (LM Studio; the model is not loaded, and may be loaded with less)",
    };
  }
  return null;
}

async function fromOllama(get: Get, root: string, model: string): Promise<DiscoveredWindow | null> {
  const [running, shown] = await Promise.all([
    get("GET", `${root}/api/ps`),
    get("POST", `${root}/api/show`, { model }),
  ]);
  if (isObject(running) && Array.isArray(running.models)) {
    const tagged = model.includes(":") ? model : `${model}:latest`;
    const loaded = running.models
      .filter(isObject)
      .find(
        (entry) =>
          [model, tagged].includes(String(entry.name)) ||
          [model, tagged].includes(String(entry.model)),
      );
    if (loaded && positive(loaded.context_length)) {
      return {
        contextWindow: loaded.context_length,
        source: "GET /api/ps context_length (Ollama, as loaded)",
      };
    }
  }
  if (!isObject(shown)) return null;
  const numCtx =
    typeof shown.parameters === "string"
      ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(shown.parameters)
      : null;
  if (numCtx?.[1]) {
    return {
      contextWindow: Number.parseInt(numCtx[1], 10),
      source: "POST /api/show num_ctx (Ollama)",
    };
  }
  const info = isObject(shown.model_info) ? shown.model_info : {};
  const arch =
    typeof info["general.architecture"] === "string" ? info["general.architecture"] : null;
  const key = arch
    ? `${arch}.context_length`
    : Object.keys(info).find((name) => name.endsWith(".context_length"));
  const value = key ? info[key] : undefined;
  if (!positive(value)) return null;
  return {
    contextWindow: value,
    source: `POST /api/show ${key} (Ollama; the model's maximum: Ollama may serve a smaller num_ctx unless OLLAMA_CONTEXT_LENGTH or num_ctx is set)`,
  };
}

function positive(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}

function portOf(url: string): string {
  try {
    return new URL(url).port;
  } catch {
    return "";
  }
}

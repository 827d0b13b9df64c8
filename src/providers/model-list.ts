// `GET /v1/models`, answered in full: the status, the model ids, and a typed error when the endpoint
// refused or could not be reached. `nex doctor` needs all of it; choosing a model needs only the ids.
// One attempt, a short timeout, no retries: it is a side request.
import type { ProviderError } from "../protocol/index.ts";
import { hostOf, trimSlash } from "./client-config.ts";
import {
  classifyHttpError,
  describeFetchError,
  type HttpFetch,
  httpFetch,
  readText,
  redact,
  retryAfterMs,
} from "./http/index.ts";
import { isObject } from "./turns/index.ts";

/** Where to ask, and with which key. */
export interface ModelListOptions {
  baseUrl: string;
  apiKey?: string;
  kind: "openai" | "anthropic";
  signal?: AbortSignal;
  fetch?: HttpFetch;
  /** For the whole request; default 2000. */
  timeoutMs?: number;
  /** Names the key in 401/403 hints, e.g. `OPENAI_API_KEY`. */
  keyName?: string;
}

/** What `GET /models` came to. */
export type ModelListAnswer =
  | {
      /** No HTTP answer: refused, DNS, TLS, timeout. `message` says which, and what to check. */
      type: "unreachable";
      message: string;
      /** The system error code when there is one (ECONNREFUSED, CERT_HAS_EXPIRED, ...). */
      code: string | null;
    }
  | {
      type: "answered";
      status: number;
      url: string;
      /** The ids listed, or null when the answer was not a model list. */
      models: string[] | null;
      /** The failure a non-2xx status stands for (key refused, not found, rate limited, ...). */
      error: ProviderError | null;
      /** The wait a 429/503 asked for. */
      retryAfterMs: number | null;
    }
  | { type: "aborted" };

// A model list is a few KB; OpenRouter's is a few hundred.
const MAX_LIST_BYTES = 8 * 2 ** 20;

/** The URL of the model list for a base URL (Anthropic's base is the server root). */
export function modelListUrl(baseUrl: string, kind: "openai" | "anthropic"): string {
  const base = trimSlash(baseUrl);
  return kind === "openai" ? `${base}/models` : `${base.replace(/\/v1$/, "")}/v1/models`;
}

/** The headers a side request (model list, discovery) sends, key included. */
export function sideRequestHeaders(
  kind: "openai" | "anthropic",
  apiKey: string | undefined,
): Record<string, string> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (apiKey && kind === "openai") headers.authorization = `Bearer ${apiKey}`;
  if (kind === "anthropic") {
    headers["anthropic-version"] = "2023-06-01";
    if (apiKey) headers["x-api-key"] = apiKey;
  }
  return headers;
}

/** Sends `GET /models` once and says what came back. Never throws; the key never appears in a message. */
export async function fetchModelList(options: ModelListOptions): Promise<ModelListAnswer> {
  const url = modelListUrl(options.baseUrl, options.kind);
  const host = hostOf(url);
  const secrets = options.apiKey ? [options.apiKey] : [];
  const timeoutMs = options.timeoutMs ?? 2000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const response = await (options.fetch ?? httpFetch)(url, {
      method: "GET",
      headers: sideRequestHeaders(options.kind, options.apiKey),
      signal,
    });
    const text = (await readText(response.body, MAX_LIST_BYTES)) ?? "";
    const error = response.ok
      ? null
      : classifyHttpError(response.status, text, {
          host,
          path: new URL(url).pathname,
          keyName: options.keyName ?? "the API key",
          keySent: Boolean(options.apiKey),
        });
    return {
      type: "answered",
      status: response.status,
      url,
      models: response.ok ? idsOf(text) : null,
      error: error ? { ...error, message: redact(error.message, secrets) } : null,
      retryAfterMs: retryAfterMs(response.headers, Date.now()),
    };
  } catch (error) {
    if (options.signal?.aborted) return { type: "aborted" };
    if (timeout.aborted) {
      return {
        type: "unreachable",
        code: "timeout",
        message: `${host} did not answer within ${Math.round(timeoutMs / 100) / 10} s`,
      };
    }
    const cause = error instanceof Error ? (error.cause as { code?: string } | undefined) : null;
    return {
      type: "unreachable",
      code: cause?.code ?? null,
      message: redact(`${host}: ${describeFetchError(error)}`, secrets),
    };
  }
}

function idsOf(text: string): string[] | null {
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(list) || !Array.isArray(list.data)) return null;
  return list.data
    .filter(isObject)
    .flatMap((entry) => (typeof entry.id === "string" ? [entry.id] : []));
}

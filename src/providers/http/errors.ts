// Turns HTTP and transport failures into typed ProviderErrors whose message says what happened
// (status, host, the server's own words) and what to do next. Secrets are scrubbed by the caller
// (see `redact`) from every message before it leaves the client.
import type { ProviderError } from "../../protocol/index.ts";
import { isObject } from "../turns/index.ts";

/** What the classifier knows about the request that failed. */
export interface FailureContext {
  host: string;
  /** The URL path requested, for 404 hints. */
  path: string;
  /** Where the key comes from, for 401/403 hints, e.g. `OPENAI_API_KEY`. */
  keyName: string;
  /** Whether a key was sent at all. */
  keySent: boolean;
}

const maxServerMessage = 400;

export function classifyHttpError(
  status: number,
  body: string,
  context: FailureContext,
  /** Set when the error came inside a 200 answer: names what it said instead of a status it never sent. */
  inBody?: string,
): ProviderError {
  // The server's own words end the sentence; drop their final full stop so ours does not double it.
  const serverMessage = (
    serverMessageOf(body) || `(no message in the ${body ? "body" : "empty body"})`
  ).replace(/\.+$/, "");
  const at = inBody
    ? `${context.host} answered HTTP 200 with an error in the body (${inBody})`
    : `${context.host} answered HTTP ${status}`;
  if (isContextLength(status, body)) {
    const contextLimit = contextLimitOf(body);
    const window = contextLimit === undefined ? "" : ` (${contextLimit} tokens)`;
    return {
      code: "context_length",
      status,
      retryable: false,
      message: `The conversation does not fit the model's context window${window}: ${at}: ${serverMessage}. Compact the conversation or start a new one; sending it again unchanged would fail the same way.`,
      ...(contextLimit === undefined ? {} : { contextLimit }),
    };
  }
  if (status === 401 || status === 403) {
    const key = context.keySent
      ? `check that ${context.keyName} holds a valid key for this endpoint`
      : `no API key was sent: set ${context.keyName}`;
    return {
      code: "auth",
      status,
      retryable: false,
      message: `The endpoint refused the credentials: ${at}: ${serverMessage}. To fix: ${key}, and that the base URL points at the server the key belongs to.`,
    };
  }
  if (status === 404) {
    return {
      code: "not_found",
      status,
      retryable: false,
      message: `Nothing found at ${context.path}: ${at}: ${serverMessage}. Check the base URL (OpenAI-compatible servers usually end in /v1) and the model name.${otherApiHint(context.path, serverMessage)}`,
    };
  }
  if (status === 408) {
    return {
      code: "timeout",
      status,
      retryable: true,
      message: `The endpoint timed out the request: ${at}: ${serverMessage}.`,
    };
  }
  if (status === 429) {
    return {
      code: "rate_limited",
      status,
      retryable: true,
      message: `The endpoint is rate limiting requests: ${at}: ${serverMessage}.`,
    };
  }
  const setting = status >= 500 ? settingNamed(serverMessage) : null;
  if (setting !== null) {
    // The server names a setting it was started without: every retry would fail the same way.
    return {
      code: "config",
      status,
      retryable: false,
      message: `The endpoint is not set up for this request: ${at}: ${serverMessage}. nex did not send it again, since the same request fails the same way until the server's settings change: ${setting}`,
    };
  }
  if (status >= 500) {
    return {
      code: "server_error",
      status,
      retryable: true,
      message: `The endpoint failed: ${at}: ${serverMessage}.`,
    };
  }
  return {
    code: "bad_request",
    status,
    retryable: false,
    message: inBody
      ? `The endpoint reported an error: ${at}: ${serverMessage}. nex did not send the request again; check the model name and settings, or the endpoint's logs.`
      : `The endpoint rejected the request: ${at}: ${serverMessage}. nex did not send it again, since the same request would fail the same way; check the model name and settings.`,
  };
}

/**
 * A 404 on one OpenAI API that is not about the model: the server may serve only the other one (the
 * Responses API alone, as Codex-era servers do, or Chat Completions alone).
 */
function otherApiHint(path: string, serverMessage: string): string {
  if (/model/i.test(serverMessage)) return "";
  if (path.endsWith("/chat/completions"))
    return ' A server that speaks only the Responses API needs "api": "responses" in the config; nex doctor tells which API it serves.';
  if (path.endsWith("/responses"))
    return ' A server without the Responses API needs "api": "responses" removed from the config; nex doctor tells which API it serves.';
  return "";
}

/**
 * What to change when a server error names a setting the server lacks (llama-server without
 * `--jinja` answers a request with tools with HTTP 500 "tools param requires --jinja flag"), or null.
 */
function settingNamed(serverMessage: string): string | null {
  const flag = /requires (?:the )?[`'"]?(--[a-z][\w-]*)[`'"]? (?:flag|option)/i.exec(
    serverMessage,
  )?.[1];
  if (flag === undefined) return null;
  if (flag === "--jinja")
    return "restart llama-server with --jinja (it renders the model's chat template, which is what offers tools to the model).";
  return `restart the server with ${flag}.`;
}

/**
 * llama-server's error event when the model's output does not parse in its chat template's tool-call
 * format ("The model produced output that does not match the expected Hermes 2 Pro format"): the
 * stream ends there, without the reply. Null for any other error.
 */
export function unparsedToolCall(
  body: Record<string, unknown>,
  context: FailureContext,
): ProviderError | null {
  const said = serverMessageOf(JSON.stringify(body));
  if (!/output that does not match the expected .* format/i.test(said)) return null;
  return {
    code: "invalid_response",
    retryable: true,
    maxRetries: 1,
    message: `The server could not read the model's reply as a tool call: ${context.host} ended the stream with "${said.replace(/\.+$/, "")}", so the reply so far is discarded. nex asks for a new reply once; if it keeps happening, the model is unreliable at this tool-call format: use a model trained for tool calls, a lower temperature (llama-server --temp 0.2), or check that the server's chat template is the model's own (--chat-template-file).`,
  };
}

/** A failure to reach the endpoint or to keep reading from it. */
export function networkError(host: string, detail: string): ProviderError {
  return {
    code: "network",
    retryable: true,
    message: `Could not talk to ${host}: ${detail}. Check that the server is running and the base URL is right.`,
  };
}

export function timeoutError(host: string, what: string): ProviderError {
  return {
    code: "timeout",
    retryable: true,
    // A local server sends nothing while it reads a long prompt: on a slow machine that is minutes.
    message: `Timed out waiting for ${host}: ${what}. The server may be overloaded or stuck; check that it is still running. If it is busy reading a long prompt (a local model on a slow machine), allow it longer: NEX_FIRST_BYTE_TIMEOUT and NEX_IDLE_TIMEOUT (seconds), or "timeouts" in the config file.`,
  };
}

export function abortedError(): ProviderError {
  return { code: "aborted", retryable: false, message: "The request was cancelled." };
}

/** A 2xx answer nex cannot read. */
export function invalidResponse(host: string, detail: string, retryable: boolean): ProviderError {
  return {
    code: "invalid_response",
    retryable,
    message: `Could not read the answer from ${host}: ${detail}. Check that the base URL points at an OpenAI- or Anthropic-compatible API.`,
  };
}

/** Replaces every occurrence of each secret (at least 4 characters) with `[redacted]`. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  }
  return out;
}

/** The server's own words: `error.message`, `message`, `error` (string), `detail`, else the raw text. */
export function serverMessageOf(body: string): string {
  const parsed = parseJson(body);
  const candidates: unknown[] = [];
  if (isObject(parsed)) {
    const error = parsed.error;
    if (isObject(error)) candidates.push(error.message);
    candidates.push(error, parsed.message, parsed.detail);
  }
  const found = candidates.find(
    (value): value is string => typeof value === "string" && value.trim() !== "",
  );
  return trim(found ?? (parsed === undefined ? body : ""));
}

function trim(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > maxServerMessage ? `${flat.slice(0, maxServerMessage)}…` : flat;
}

const contextWording = [
  /context_length_exceeded/i,
  /exceed_context_size_error/i,
  /maximum context length/i,
  /context (?:length|window|size)/i,
  /prompt is too long/i,
  /too many (?:input )?tokens/i,
  /maximum model length/i,
  /\bn_ctx\b/,
  /exceed(?:s|ed)? (?:the )?(?:available )?context/i,
];

/** Context-length errors: 413 always; 400/422 when the body uses any known wording. */
export function isContextLength(status: number, body: string): boolean {
  if (status === 413) return true;
  if (status !== 400 && status !== 422) return false;
  return contextWording.some((pattern) => pattern.test(body));
}

const limitPatterns = [
  /"n_ctx"\s*:\s*(\d+)/, // llama.cpp error object
  /available context size \((\d+) tokens\)/i, // llama.cpp message
  /maximum context length is (\d+)/i, // OpenAI, vLLM, OpenRouter
  /exceed context limit: \d+ \+ \d+ > (\d+)/i, // Anthropic, input + max_tokens
  /\d+ tokens > (\d+) maximum/i, // Anthropic "prompt is too long"
  /maximum model length of (\d+)/i, // vLLM decoder prompt
  /context length of only (\d+)/i, // LM Studio
  /context (?:length|window|size) (?:is|of) (\d+)/i,
  /\bn_ctx\s*[=:]\s*(\d+)/i,
];

/** The context window the error body states, when it states one. */
export function contextLimitOf(body: string): number | undefined {
  for (const pattern of limitPatterns) {
    const match = pattern.exec(body);
    const value = match?.[1] ? Number.parseInt(match[1], 10) : Number.NaN;
    if (Number.isFinite(value) && value > 0) return value;
  }
  return undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// Error types and codes that servers put in an error object inside a 200 body or a stream, and the
// HTTP status they stand for (OpenAI, Anthropic, and the servers that copy them).
const STATUS_OF: Record<string, number> = {
  invalid_request_error: 400,
  context_length_exceeded: 400,
  authentication_error: 401,
  invalid_api_key: 401,
  permission_error: 403,
  not_found_error: 404,
  model_not_found: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  insufficient_quota: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
};

// The Responses API's codes of a failed response that the request itself caused (`invalid_prompt`,
// an image it could not read): sending it again would fail the same way.
const REQUEST_FAULT = /^(invalid_|image_|unsupported_image|empty_image|failed_to_download_image)/;

/**
 * An error object inside a 200 body or stream, classified like the HTTP error it stands for: a
 * numeric `code` when it is an HTTP status, else its `code` or `type` words, else a 500.
 */
export function inBodyError(body: Record<string, unknown>, context: FailureContext): ProviderError {
  const error = isObject(body.error) ? body.error : {};
  const numeric =
    typeof error.code === "number" ? error.code : Number.parseInt(String(error.code ?? ""), 10);
  const status =
    numeric >= 400 && numeric <= 599
      ? numeric
      : (STATUS_OF[String(error.code)] ??
        STATUS_OF[String(error.type)] ??
        (REQUEST_FAULT.test(String(error.code)) ? 400 : 500));
  const said = [error.type, error.code, body.type === "error" ? undefined : body.type]
    .filter((v): v is string | number => typeof v === "string" || typeof v === "number")
    .map(String);
  const kind = said.length > 0 ? `\`${said[0]}\`` : "no error type";
  return classifyHttpError(status, JSON.stringify(body), context, kind);
}

// `nex doctor` on an OpenAI endpoint whose first request found nothing at its path: does the server
// speak the other OpenAI API? One small non-streamed request to it says, and the streaming check then
// names the setting to change (`"api": "responses"`, or its removal).
import type { ProviderError } from "../../protocol/index.ts";
import { type HttpFetch, hostOf } from "../../providers/index.ts";
import { type NexConfig, wireFormatOf } from "../config/index.ts";
import type { DoctorCheck } from "./doctor-checks.ts";

/** The other API, found served: what to set. */
export interface OtherApi {
  api: "chat" | "responses";
  path: string;
  status: number;
}

/** Whether an error of the first request says the server may speak the other API. */
export function mayBeOtherApi(config: NexConfig, error: ProviderError): boolean {
  if (config.provider !== "openai") return false;
  return error.code === "not_found" || error.status === 405 || error.code === "invalid_response";
}

/** Asks the other API once (a tiny whole request); null when it is not served either. */
export async function probeOtherApi(
  config: NexConfig,
  model: string,
  fetch: HttpFetch,
  signal: AbortSignal,
): Promise<OtherApi | null> {
  const api = wireFormatOf(config, model) === "responses" ? "chat" : "responses";
  const path = api === "responses" ? "/responses" : "/chat/completions";
  const prompt = "Reply with the single word: ok";
  const body =
    api === "responses"
      ? { model, input: prompt, max_output_tokens: 16, store: false, stream: false }
      : { model, messages: [{ role: "user", content: prompt }], max_tokens: 16, stream: false };
  try {
    const response = await fetch(`${config.baseUrl}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(30_000)]),
    });
    // Nothing of the body is needed: stopping at its first chunk discards the rest.
    for await (const _ of response.body ?? []) break;
    return response.ok
      ? { api, path: new URL(`${config.baseUrl}${path}`).pathname, status: response.status }
      : null;
  } catch {
    return null;
  }
}

/** The streaming check, told which setting makes nex speak the API the server serves. */
export function withApiHint(
  streaming: DoctorCheck,
  other: OtherApi | null,
  config: NexConfig,
): DoctorCheck {
  if (!other) return streaming;
  const where = config.configPath ?? "the config file";
  const scope = config.endpoint ? `the endpoint "${config.endpoint.name}"` : "the top level";
  const next =
    other.api === "responses"
      ? `${hostOf(config.baseUrl)} serves the Responses API (POST ${other.path} answered ${other.status}) and not Chat Completions: set "api": "responses" at ${scope} of ${where} (or under the model in "models").`
      : `${hostOf(config.baseUrl)} serves Chat Completions (POST ${other.path} answered ${other.status}) and not the Responses API: remove "api": "responses" from ${where} (or set "api": "chat").`;
  return { ...streaming, next };
}

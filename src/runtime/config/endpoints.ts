// Named endpoints: the config can name several servers (`"endpoints": {"lambda01": {...}}`), one
// chosen per session with `-e NAME`, `NAME:model` in `--model`, NEX_ENDPOINT or `"endpoint"`. A
// prefix counts only when it names a configured endpoint: `qwen3:0.6b` stays an Ollama model name.

/** One named endpoint as the config file gives it. */
export interface EndpointEntry {
  provider?: "openai" | "anthropic" | undefined;
  /** `responses` for a server that speaks the Responses API (`POST /v1/responses`). */
  api?: "chat" | "responses" | undefined;
  baseUrl: string;
  /** The environment variable holding its key; the key itself is never in the config. */
  apiKeyEnv?: string | undefined;
  /** The model used when none is given. */
  model?: string | undefined;
  /** The models it serves, with their limits and reasoning settings. */
  models?: Record<string, object> | undefined;
}

/** The endpoint a session uses and the model named for it. */
export interface ChosenEndpoint {
  name: string;
  entry: EndpointEntry;
  /** The model with the endpoint prefix taken off, when one was given. */
  model: string | undefined;
}

/**
 * Picks the endpoint: `-e` first, then a `NAME:` prefix of the model, then the environment and the
 * config's default. Returns null when none is named. Throws a message for a name not configured,
 * or for `-e` and a prefix naming two different endpoints.
 */
export function chooseEndpoint(input: {
  flag: string | undefined;
  model: string | undefined;
  envName: string | undefined;
  fileName: string | undefined;
  endpoints: Record<string, EndpointEntry>;
}): ChosenEndpoint | null {
  const names = Object.keys(input.endpoints);
  const colon = input.model?.indexOf(":") ?? -1;
  const prefix = input.model && colon > 0 ? input.model.slice(0, colon) : undefined;
  const prefixed = prefix !== undefined && Object.hasOwn(input.endpoints, prefix);
  const model = prefixed ? input.model?.slice(colon + 1) : input.model;
  if (input.flag !== undefined && prefixed && prefix !== input.flag) {
    throw new Error(
      `--endpoint ${input.flag} and --model ${input.model} name two endpoints. Give one: --model ${model} with --endpoint, or ${input.model} alone.`,
    );
  }
  const name = input.flag ?? (prefixed ? prefix : undefined) ?? input.envName ?? input.fileName;
  if (name === undefined || name === "") return null;
  const entry = Object.hasOwn(input.endpoints, name) ? input.endpoints[name] : undefined;
  if (!entry) {
    throw new Error(
      names.length === 0
        ? `No endpoint named "${name}": the config file names none. Add it under "endpoints" (provider, baseUrl, apiKeyEnv, models).`
        : `No endpoint named "${name}". The config names: ${names.join(", ")}.`,
    );
  }
  return { name, entry, model };
}

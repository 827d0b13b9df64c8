// What the chat's first-run set-up needs from the runtime: whether anything names an endpoint yet,
// the models an endpoint lists, and the config file written with what the user chose.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { fetchModelList, type HttpFetch } from "../../providers/index.ts";
import { type ConfigFlags, defaultConfigPath, type ProviderKind } from "./config.ts";

type Env = Record<string, string | undefined>;

// Any of these names an endpoint (or a key for the default one): the user has set nex up already.
const ENDPOINT_VARIABLES = [
  "OPENAI_BASE_URL",
  "ANTHROPIC_BASE_URL",
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "NEX_API_KEY",
  "NEX_PROVIDER",
  "NEX_MODEL",
  "NEX_CONFIG",
];

/** The config file the set-up would write, or null when the flags, environment or a file already say where to go. */
export function unconfiguredConfigPath(
  flags: ConfigFlags,
  env: Env,
  exists: (path: string) => boolean,
): string | null {
  if (flags.baseUrl || flags.provider || flags.model || flags.config) return null;
  if (ENDPOINT_VARIABLES.some((name) => env[name])) return null;
  const path = defaultConfigPath(env);
  return exists(path) ? null : path;
}

/** The ids an endpoint lists, or why there are none. */
export async function modelsAt(
  kind: ProviderKind,
  baseUrl: string,
  apiKey: string | undefined,
  keyName: string,
  fetch?: HttpFetch,
): Promise<{ models: string[] } | { problem: string }> {
  const answer = await fetchModelList({
    kind,
    baseUrl,
    keyName,
    timeoutMs: 5000,
    ...(fetch ? { fetch } : {}),
    ...(apiKey ? { apiKey } : {}),
  });
  if (answer.type === "unreachable") return { problem: answer.message };
  if (answer.type === "aborted") return { problem: "the request was stopped" };
  if (answer.error) return { problem: answer.error.message };
  if (!answer.models) return { problem: `${answer.url} did not answer with a model list` };
  return { models: answer.models };
}

/** What the set-up writes: never a key, only the name of the variable that holds it. */
export interface FirstRunChoice {
  provider: ProviderKind;
  baseUrl: string;
  apiKeyEnv: string;
  model: string;
}

/** Writes the config file whole (temp file, then rename), creating its folder. */
export function writeFirstRunConfig(path: string, choice: FirstRunChoice): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(choice, null, 2)}\n`, { mode: 0o600, flag: "wx" });
  renameSync(temp, path);
}

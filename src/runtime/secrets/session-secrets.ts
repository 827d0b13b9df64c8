// The secrets one session holds, and the environment its commands get without them.
import {
  createSecretScrubber,
  type KnownSecret,
  type SecretScrubber,
} from "../../session/index.ts";
import type { NexConfig } from "../config/index.ts";
import { webKeyVariables } from "../web/index.ts";
import type { ConcealedValue } from "./conceal-environment.ts";

type Env = Record<string, string | undefined>;

// Variables nex reads a key from, whichever provider this session uses: none reaches a command.
const KEY_VARIABLES = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NEX_API_KEY"];
const PROXY_VARIABLES = ["HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"].flatMap((name) => [
  name,
  name.toLowerCase(),
]);

/**
 * Every secret nex holds in this session, named for the redaction marker: the key it sends, the key
 * variables of its environment, and the password of each proxy URL (as written and decoded).
 */
export function sessionSecrets(config: NexConfig, env: Env): KnownSecret[] {
  const secrets: KnownSecret[] = [];
  for (const name of new Set([
    config.apiKeyEnv,
    ...(config.keyVariables ?? []),
    ...KEY_VARIABLES,
  ])) {
    const value = env[name];
    if (value) secrets.push({ name, value });
  }
  // The web search backends' keys: sent only to the backend the user configured, shown nowhere.
  for (const name of webKeyVariables(config)) {
    const value = env[name];
    if (value && !secrets.some((secret) => secret.value === value)) secrets.push({ name, value });
  }
  if (config.apiKey && !secrets.some((secret) => secret.value === config.apiKey))
    secrets.push({ name: config.apiKeyEnv, value: config.apiKey });
  for (const name of PROXY_VARIABLES) {
    const password = passwordOf(env[name]);
    if (!password) continue;
    secrets.push({ name: `${name} password`, value: password });
    const decoded = safeDecode(password);
    if (decoded !== password) secrets.push({ name: `${name} password`, value: decoded });
  }
  return secrets;
}

/** What to overwrite in nex's original environment block: key values whole, a proxy's password. */
export function concealedValues(config: NexConfig, env: Env): ConcealedValue[] {
  const values: ConcealedValue[] = [];
  for (const name of new Set([
    config.apiKeyEnv,
    ...(config.keyVariables ?? []),
    ...KEY_VARIABLES,
  ])) {
    const value = env[name];
    if (value) values.push({ name, secret: value });
  }
  for (const name of PROXY_VARIABLES) {
    const password = passwordOf(env[name]);
    if (password) values.push({ name, secret: password });
  }
  return values;
}

/** The scrubber of a session's secrets: one precompiled search, inactive when there are none. */
export function sessionScrubber(
  config: NexConfig,
  env: Env,
  more: readonly KnownSecret[] = [],
): SecretScrubber {
  return createSecretScrubber([...sessionSecrets(config, env), ...more]);
}

/**
 * The environment for commands the model runs: nex's key variables are left out (so `env` in a
 * command cannot show the key), and a proxy URL keeps its host and port but not its user and
 * password. Dropping the proxy would break `npm install` and `pip install` behind a company proxy;
 * a proxy that demands the password answers 407, which tells the user to give the command its own.
 */
export function toolEnvironment(env: Env, config: NexConfig): Env {
  const out = { ...env };
  for (const name of [...KEY_VARIABLES, ...(config.keyVariables ?? []), config.apiKeyEnv])
    delete out[name];
  for (const name of PROXY_VARIABLES) {
    const value = out[name];
    if (value && passwordOrUser(value)) out[name] = withoutCredentials(value);
  }
  return out;
}

function passwordOf(value: string | undefined): string {
  return value ? (URL.parse(value)?.password ?? "") : "";
}

function passwordOrUser(value: string): boolean {
  const url = URL.parse(value);
  return Boolean(url && (url.username || url.password));
}

function withoutCredentials(value: string): string {
  const url = URL.parse(value);
  if (!url) return value;
  url.username = "";
  url.password = "";
  // `http://host:3128/` → `http://host:3128`, as proxies are usually written.
  return url.pathname === "/" && !value.endsWith("/") ? url.href.slice(0, -1) : url.href;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

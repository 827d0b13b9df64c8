// The web tools' settings: the config file's `web` section, and search backends found in the
// environment when the config names none (SEARXNG_URL, BRAVE_API_KEY, TAVILY_API_KEY, EXA_API_KEY).
import type { SearchBackend } from "../../web/index.ts";
import type { NexConfig } from "../config/index.ts";

type Env = Record<string, string | undefined>;

const DEFAULT_KEY_ENV: Record<SearchBackend["type"], string | null> = {
  searxng: null,
  brave: "BRAVE_API_KEY",
  tavily: "TAVILY_API_KEY",
  exa: "EXA_API_KEY",
  duckduckgo: null,
  wikipedia: null,
  hackernews: null,
  stackexchange: null,
  github: null,
};

// The web client's own table (web/search-backends.ts) is not imported: this file loads at start-up,
// the web client only at a web tool's first call.
const PUBLIC_URL: Record<SearchBackend["type"], string> = {
  searxng: "",
  brave: "https://api.search.brave.com",
  tavily: "https://api.tavily.com",
  exa: "https://api.exa.ai",
  duckduckgo: "https://html.duckduckgo.com",
  wikipedia: "https://en.wikipedia.org",
  hackernews: "https://hn.algolia.com",
  stackexchange: "https://api.stackexchange.com",
  github: "https://api.github.com",
};

/** Asked beside the configured backends unless `"keyless": false`; GitHub only when named (its limit). */
const DEFAULT_KEYLESS = ["duckduckgo", "wikipedia", "hackernews", "stackexchange"] as const;

/** The variables search keys are read from (configured or the usual names), for the scrubber. */
export function webKeyVariables(config: NexConfig): string[] {
  const named = (config.web.search ?? []).map((entry) => entry.apiKeyEnv).filter(Boolean);
  return [...new Set([...(named as string[]), "BRAVE_API_KEY", "TAVILY_API_KEY", "EXA_API_KEY"])];
}

/**
 * The search backends of this session, keys read from the environment: the configured ones (or
 * those the environment names), and beside them the keyless ones unless `"keyless": false`.
 */
export function searchBackends(config: NexConfig, env: Env): SearchBackend[] {
  const configured = config.web.search;
  const chosen = configured ?? [
    ...(env.SEARXNG_URL ? [{ type: "searxng" as const, url: env.SEARXNG_URL }] : []),
    ...(["brave", "tavily", "exa"] as const)
      .filter((type) => env[DEFAULT_KEY_ENV[type] ?? ""])
      .map((type) => ({ type })),
  ];
  const keyless = DEFAULT_KEYLESS.filter(() => config.web.keyless !== false)
    .filter((type) => !chosen.some((entry) => entry.type === type))
    .map((type) => ({ type }));
  const entries: { type: SearchBackend["type"]; url?: string; apiKeyEnv?: string }[] = [
    ...chosen,
    ...keyless,
  ];
  return entries.map((entry) => {
    const keyEnv = entry.apiKeyEnv || DEFAULT_KEY_ENV[entry.type];
    const url =
      entry.url || (entry.type === "searxng" ? (env.SEARXNG_URL ?? "") : PUBLIC_URL[entry.type]);
    return { type: entry.type, url, keyEnv, key: keyEnv ? env[keyEnv] || null : null };
  });
}

import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve } from "node:path";
import * as v from "valibot";
import type { PermissionMode } from "../../protocol/index.ts";
import { allowHostsProblem, type SandboxMode, type SandboxSettings } from "../../tools/index.ts";
import { readOwnFile } from "../../tools/workspace/index.ts";
import { commandWritable, realPathOf } from "../consent/index.ts";
import { type ConfigFile, ConfigFileSchema, type WebConfig } from "./config-schema.ts";
import { dropUnknownKeys } from "./config-unknown-keys.ts";
import { type ChosenEndpoint, chooseEndpoint } from "./endpoints.ts";
import type { ModelSettings as RegistryModelSettings } from "./model-registry.ts";

/** The wire format nex speaks to the endpoint. */
export type ProviderKind = "openai" | "anthropic";

/** Which OpenAI API: Chat Completions (the default) or Responses (`POST /v1/responses`). */
export type WireApi = "chat" | "responses";

export { type ConfigFile, ConfigFileSchema, type WebConfig } from "./config-schema.ts";

/** Options given on the command line; they win over the environment and the config file. */
export interface ConfigFlags {
  provider?: string | undefined;
  baseUrl?: string | undefined;
  model?: string | undefined;
  cwd?: string | undefined;
  permissionMode?: string | undefined;
  maxTurns?: number | undefined;
  dataDir?: string | undefined;
  config?: string | undefined;
  sandbox?: string | undefined;
  /** `--allow-host HOST`: hosts added to the config's `sandbox.allowHosts` for this run. */
  allowHosts?: string[] | undefined;
  reasoningEffort?: string | undefined;
  endpoint?: string | undefined;
  /** `--mcp-config FILE`, each a file like Claude Code's `.mcp.json`. */
  mcpConfig?: string[] | undefined;
  /** `--no-mcp`: start none of the MCP servers the config or a project names. */
  noMcp?: boolean | undefined;
}

/** Everything a session needs to start, resolved once. */
export interface NexConfig {
  provider: ProviderKind;
  /** The OpenAI API of the endpoint; a model's own `api` in `models` wins for that model. */
  api: WireApi;
  baseUrl: string;
  /** Never printed, journaled or put in an error. */
  apiKey: string | null;
  apiKeyEnv: string;
  model: string | null;
  workspace: string;
  permissionMode: PermissionMode;
  maxTurns: number;
  stream: boolean;
  dataDir: string;
  allowedPaths: string[];
  commands: { allow: string[]; deny: string[] };
  models: Record<string, ModelSettings>;
  /** `--reasoning-effort` (wins over every model's setting), and the config file's default. */
  reasoningEffort: { given: EffortOrOff | null; configured: EffortOrOff | null };
  /** HTTP_PROXY / HTTPS_PROXY / NO_PROXY (either case) when a proxy is set, else null. */
  proxy: { HTTP_PROXY?: string; HTTPS_PROXY?: string; NO_PROXY: string } | null;
  /** Overrides of the client's first-byte and idle timeouts, in milliseconds. */
  timeouts: { firstByteMs?: number; idleMs?: number };
  /** The user's hooks as the config file gives them (checked when the session opens). */
  hooks: unknown;
  /** How commands are confined; nex's own data and config directories are added when the tools are built. */
  sandbox: SandboxSettings;
  configPath: string | null;
  /** When the chat notifies a terminal in the background. */
  notifications: NotificationSettings;
  /** The config file's `web` section as written (resolved by web-config.ts when a web tool runs). */
  web: WebConfig;
  /** The named endpoint in use, and the models its config lists (null: it lists none). */
  endpoint: { name: string; models: string[] | null } | null;
  /** The names of the config's endpoints. */
  endpointNames: string[];
  /** Every variable a key may come from (every endpoint's): none reaches a command or the screen. */
  keyVariables: string[];
  /** The config file's `mcpServers`, unchecked (`runtime/mcp-servers.ts` reads it). */
  mcpServers: unknown;
  /** What the config file holds that nex left out (unknown settings), for the session's notices. */
  notices: string[];
  /** The config's `chatRoot` (`nex --chat NAME`), as written; null when unset. */
  chatRoot: string | null;
}

/** A reasoning effort, or "off" to send none even where the config sets one. */
export type EffortOrOff = "low" | "medium" | "high" | "off";

/** What the config says of one model: its limits and how hard it should think. */
export interface ModelSettings extends RegistryModelSettings {
  api?: WireApi;
  reasoningEffort?: EffortOrOff;
  thinkingBudget?: number;
}

/** When the chat tells a terminal in the background that a long task ended or an answer is needed. */
export interface NotificationSettings {
  /** `auto`: the terminal's own notification where it has one, else the bell; `bell`; `off`. */
  mode: "auto" | "bell" | "off";
  /** A task that took at least this long is worth a notification when it ends. */
  afterSeconds: number;
}

/** The config file's `web` section. */
/** A configuration nex refuses to run with, and what to change. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

type Env = Record<string, string | undefined>;

/** Resolves flags, environment conventions (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, ...) and the config file. */
export function resolveConfig(flags: ConfigFlags, env: Env, cwd: string): NexConfig {
  const configPath = configFilePath(flags, env);
  const file = readConfigFile(
    configPath,
    flags.config !== undefined || env.NEX_CONFIG !== undefined,
  );
  const explicitModel = flags.model ?? env.NEX_MODEL;
  let chosen: ChosenEndpoint | null;
  try {
    chosen = chooseEndpoint({
      flag: flags.endpoint,
      model: explicitModel ?? file.model,
      envName: env.NEX_ENDPOINT,
      fileName: file.endpoint,
      endpoints: file.endpoints ?? {},
    });
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const named = chosen?.entry;
  const provider = parseProvider(
    flags.provider ?? named?.provider ?? env.NEX_PROVIDER ?? file.provider ?? "openai",
  );
  const apiKeyEnv =
    named?.apiKeyEnv ??
    file.apiKeyEnv ??
    (provider === "anthropic" ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
  // A named endpoint is its own address: the provider's base URL variable does not move it.
  const baseUrl = parseBaseUrl(
    flags.baseUrl ??
      named?.baseUrl ??
      (provider === "anthropic" ? env.ANTHROPIC_BASE_URL : env.OPENAI_BASE_URL) ??
      file.baseUrl ??
      (provider === "anthropic" ? "https://api.anthropic.com" : "https://api.openai.com/v1"),
  );
  const workspace = resolve(cwd, flags.cwd ?? ".");
  if (!existsSync(workspace)) {
    throw new ConfigError(
      `The workspace ${workspace} does not exist. Pass an existing directory with --cwd.`,
    );
  }
  refusePlantedConfig(configPath, workspace, env);
  const dataDir = resolveDataDir(flags.dataDir ?? env.NEX_DATA_DIR ?? file.dataDir, env, workspace);
  refuseLinkedDataDir(dataDir, workspace);
  const models = { ...(file.models ?? {}), ...(named?.models ?? {}) };
  const api = resolveApi(provider, named?.api ?? file.api, models);
  const maxTurns = flags.maxTurns ?? file.maxTurns ?? 50;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new ConfigError(`--max-turns must be a positive whole number, not ${maxTurns}.`);
  }
  return {
    provider,
    api,
    baseUrl,
    apiKey: env[apiKeyEnv] || env.NEX_API_KEY || null,
    apiKeyEnv,
    model: chosen
      ? ((explicitModel !== undefined ? chosen.model : (named?.model ?? chosen.model)) ?? null)
      : (explicitModel ?? file.model ?? null),
    workspace,
    permissionMode: parsePermissionMode(flags.permissionMode ?? file.permissionMode ?? "ask"),
    maxTurns,
    stream: file.stream ?? true,
    dataDir,
    allowedPaths: (file.allowedPaths ?? []).map((p) => resolve(workspace, p)),
    commands: {
      allow: [...(file.commands?.allow ?? []), ...savedRules(file, workspace)],
      deny: file.commands?.deny ?? [],
    },
    models,
    reasoningEffort: {
      given: parseEffortFlag(flags.reasoningEffort),
      configured: file.reasoningEffort ?? null,
    },
    timeouts: resolveTimeouts(env, file),
    hooks: file.hooks,
    sandbox: resolveSandbox(flags.sandbox ?? env.NEX_SANDBOX, file, flags.allowHosts ?? []),
    proxy: resolveProxy(env),
    configPath: existsSync(configPath) ? configPath : null,
    web: file.web ?? {},
    endpoint: chosen
      ? { name: chosen.name, models: named?.models ? Object.keys(named.models) : null }
      : null,
    endpointNames: Object.keys(file.endpoints ?? {}),
    keyVariables: [
      ...new Set([
        apiKeyEnv,
        ...(file.apiKeyEnv ? [file.apiKeyEnv] : []),
        ...Object.values(file.endpoints ?? {}).flatMap((e) => (e.apiKeyEnv ? [e.apiKeyEnv] : [])),
      ]),
    ],
    mcpServers: file.mcpServers,
    notices: file.notices ?? [],
    chatRoot: file.chatRoot ?? null,
    notifications:
      typeof file.notifications === "string"
        ? { mode: file.notifications, afterSeconds: 10 }
        : {
            mode: file.notifications?.mode ?? "auto",
            afterSeconds: file.notifications?.afterSeconds ?? 10,
          },
  };
}

/**
 * A config grants (approval mode, sandbox, hooks, MCP servers, saved rules): one a repository could
 * have shipped is refused, never read as the user's word.
 */
function refusePlantedConfig(path: string, workspace: string, env: Env): void {
  if (!existsSync(path)) return;
  // Inside a folder of `sandbox.writable` it is still out of commands' reach: its folder is hidden
  // from every command (open-tools.ts). Inside the workspace, the repository could have shipped it.
  const where = commandWritable(path, { workspace, home: env.HOME || homedir() });
  if (where)
    throw new ConfigError(
      `The config file ${path} lies ${where}: a repository or a command could write it, and a config grants permissions (approval mode, sandbox, hooks, MCP servers). Keep it outside the workspace (by default ~/.config/nex/config.json), or point --config, NEX_CONFIG or XDG_CONFIG_HOME there.`,
    );
}

/** The rules saved for this project: under its real path, or under the path as given (older saves). */
function savedRules(file: ConfigFile, workspace: string): string[] {
  const real = realPathOf(workspace);
  const keys = real === workspace ? [workspace] : [real, workspace];
  return [...new Set(keys.flatMap((key) => file.projects?.[key]?.commands?.allow ?? []))];
}

/**
 * A data folder inside the workspace that is a link out of it (a repository's `.nex` pointing at
 * `~/.ssh`) would have nex write its journals wherever the repository chose: refused.
 */
function refuseLinkedDataDir(dataDir: string, workspace: string): void {
  const inside = relative(workspace, dataDir);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside)) return;
  const real = relative(realPathOf(workspace), realPathOf(dataDir));
  if (!real.startsWith("..") && !isAbsolute(real)) return;
  throw new ConfigError(
    `The data folder ${dataDir} is inside the workspace but leads out of it (${realPathOf(dataDir)}): a link the repository may have planted. Remove the link, or set dataDir to a folder outside the workspace.`,
  );
}

// A local server is never reached through a proxy: with a company proxy set for everything, a model
// served on this machine must still answer.
const LOOPBACK = ["localhost", "127.0.0.1", "::1"];

/** The proxy variables as curl reads them: the lower-case spelling wins when both are set. */
function resolveProxy(env: Env): NexConfig["proxy"] {
  const pick = (name: string) => env[name.toLowerCase()] || env[name] || undefined;
  const http = pick("HTTP_PROXY");
  const https = pick("HTTPS_PROXY");
  if (!http && !https) return null;
  const none = [pick("NO_PROXY"), ...LOOPBACK].filter(Boolean).join(",");
  for (const [name, value] of [
    ["HTTP_PROXY", http],
    ["HTTPS_PROXY", https],
  ] as const) {
    if (value && !/^https?:$/.test(URL.parse(value)?.protocol ?? ""))
      throw new ConfigError(
        `${name} is set to something that is not an http:// or https:// URL; set it like http://proxy.example:3128 or unset it.`,
      );
  }
  return {
    ...(http ? { HTTP_PROXY: http } : {}),
    ...(https ? { HTTPS_PROXY: https } : {}),
    NO_PROXY: none,
  };
}

/** `--sandbox` / `NEX_SANDBOX` win over the config file's `sandbox`; the default confines writes to the workspace. */
function resolveSandbox(
  given: string | undefined,
  file: ConfigFile,
  flagHosts: string[],
): SandboxSettings {
  const configured =
    typeof file.sandbox === "string" ? { mode: file.sandbox } : (file.sandbox ?? {});
  const mode =
    given === undefined || given === ""
      ? (configured.mode ?? "workspace-write")
      : parseSandboxMode(given);
  return {
    mode,
    network: configured.network ?? false,
    allowHosts: resolveAllowHosts(configured.allowHosts ?? [], flagHosts),
    writable: configured.writable ?? [],
    denyRead: configured.denyRead ?? [],
    ...(configured.maxProcesses !== undefined ? { maxProcesses: configured.maxProcesses } : {}),
    ...(configured.tmpSizeMiB !== undefined ? { tmpSizeMiB: configured.tmpSizeMiB } : {}),
  };
}

/**
 * The config's `sandbox.allowHosts` and `--allow-host`, each entry checked. Only the user's own config
 * and command line reach here: nothing in a repository widens the list (`project-sandbox.ts`).
 */
function resolveAllowHosts(configured: string[], flagged: string[]): string[] {
  const hosts = [
    ...configured.map((entry) => ({ entry, where: "sandbox.allowHosts in the config file" })),
    ...flagged
      .flatMap((value) => value.split(","))
      .map((entry) => ({ entry: entry.trim(), where: "--allow-host" })),
  ];
  for (const { entry, where } of hosts) {
    const problem = allowHostsProblem(entry);
    if (problem) throw new ConfigError(`${where}: ${problem}.`);
  }
  return [...new Set(hosts.map(({ entry }) => entry.trim()))];
}

function parseSandboxMode(value: string): SandboxMode {
  if (value === "workspace-write" || value === "read-only" || value === "off") return value;
  throw new ConfigError(
    `Unknown sandbox mode "${value}". Use workspace-write (the default), read-only, or off (commands run unconfined).`,
  );
}

/** `NEX_FIRST_BYTE_TIMEOUT` / `NEX_IDLE_TIMEOUT` (seconds) win over the config file's `timeouts`. */
function resolveTimeouts(env: Env, file: ConfigFile): NexConfig["timeouts"] {
  const firstByte =
    seconds(env.NEX_FIRST_BYTE_TIMEOUT, "NEX_FIRST_BYTE_TIMEOUT") ??
    file.timeouts?.firstByteSeconds;
  const idle = seconds(env.NEX_IDLE_TIMEOUT, "NEX_IDLE_TIMEOUT") ?? file.timeouts?.idleSeconds;
  return {
    ...(firstByte !== undefined ? { firstByteMs: firstByte * 1000 } : {}),
    ...(idle !== undefined ? { idleMs: idle * 1000 } : {}),
  };
}

function seconds(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === "") return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 1 || parsed > 3600) {
    throw new ConfigError(`${name} must be a number of seconds from 1 to 3600, not "${value}".`);
  }
  return parsed;
}

/** The config file this command line reads (and `nex mcp add` writes). */
export function configFilePath(flags: ConfigFlags, env: Env): string {
  return flags.config ?? env.NEX_CONFIG ?? defaultConfigPath(env);
}

export function defaultConfigPath(env: Env): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "nex", "config.json");
}

/** `dataDir: "workspace"` keeps journals in the workspace's own `.nex/` folder. */
function resolveDataDir(value: string | undefined, env: Env, workspace: string): string {
  if (value === "workspace") return join(workspace, ".nex");
  if (value) return isAbsolute(value) ? value : resolve(workspace, value);
  const base = env.XDG_DATA_HOME || join(env.HOME || homedir(), ".local", "share");
  return join(base, "nex");
}

// A config is a few hundred bytes; a file far bigger is not one (and is never read whole into memory).
const CONFIG_LIMIT = 1024 * 1024;

function readConfigFile(path: string, explicit: boolean): ConfigFile {
  // Read like every file nex reads on its own: a FIFO or a device is refused, not waited on or drained.
  const read = readOwnFile(path, CONFIG_LIMIT);
  if (read.type === "missing") {
    if (explicit)
      throw new ConfigError(
        `The config file ${path} does not exist. Check the path given by --config or NEX_CONFIG.`,
      );
    return {};
  }
  if (read.type === "refused")
    throw new ConfigError(
      `The config file ${path} was not read: ${read.reason}. Point --config or NEX_CONFIG at a JSON file, or move it away.`,
    );
  if (read.truncated)
    throw new ConfigError(
      `The config file ${path} is ${read.size} bytes, more than the ${CONFIG_LIMIT / 1024 / 1024} MiB a config may be. Point --config or NEX_CONFIG at nex's JSON config, or move it away.`,
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(read.text);
  } catch (error) {
    throw new ConfigError(
      `The config file ${path} is not valid JSON (${(error as Error).message}). Fix it or move it away.`,
    );
  }
  let result = v.safeParse(ConfigFileSchema, parsed);
  const notices: string[] = [];
  // A strict object reports its first unknown key only: drop and parse again until none is left.
  let input = parsed;
  for (let round = 0; !result.success && round < 1000; round++) {
    const kept = dropUnknownKeys(ConfigFileSchema, input, result.issues, `The config file ${path}`);
    if (kept.notices.length === 0) break;
    notices.push(...kept.notices);
    input = kept.value;
    result = v.safeParse(ConfigFileSchema, input);
  }
  if (!result.success) {
    const problems = result.issues.slice(0, 3).map((issue) => {
      const where = (issue.path ?? []).map((item) => `/${String(item.key)}`).join("");
      return `${where || "(top)"} ${issue.message}`;
    });
    throw new ConfigError(
      `The config file ${path} has invalid settings: ${problems.join("; ")}. Fix them and run nex again.`,
    );
  }
  return { ...result.output, notices };
}

function parseEffortFlag(value: string | undefined): EffortOrOff | null {
  if (value === undefined) return null;
  if (value === "low" || value === "medium" || value === "high" || value === "off") return value;
  throw new ConfigError(
    `Unknown reasoning effort "${value}". Use low, medium, high, or off (send none).`,
  );
}

function parseProvider(value: string): ProviderKind {
  if (value === "openai" || value === "anthropic") return value;
  throw new ConfigError(
    `Unknown provider "${value}". Use --provider openai (any OpenAI-compatible server) or --provider anthropic.`,
  );
}

/** The endpoint's API; the Responses API is OpenAI's, so it is refused on an Anthropic endpoint. */
function resolveApi(
  provider: ProviderKind,
  given: WireApi | undefined,
  models: Record<string, { api?: WireApi | undefined }>,
): WireApi {
  const onModel = Object.entries(models).find(([, settings]) => settings.api === "responses");
  if (provider === "anthropic" && (given === "responses" || onModel)) {
    const where = given === "responses" ? "the endpoint" : `the model ${onModel?.[0]}`;
    throw new ConfigError(
      `"api": "responses" is set for ${where}, but the provider is anthropic: the Responses API is OpenAI's. Remove it, or set "provider": "openai" for a server that serves /v1/responses.`,
    );
  }
  return given ?? "chat";
}

function parsePermissionMode(value: string): PermissionMode {
  if (value === "plan" || value === "ask" || value === "auto_edit" || value === "approve_all")
    return value;
  throw new ConfigError(
    `Unknown permission mode "${value}". Use plan, ask, auto_edit or approve_all.`,
  );
}

function parseBaseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(
      `The base URL "${value}" is not a URL. Pass something like http://127.0.0.1:8000/v1 with --base-url.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`The base URL ${url.origin} must use http or https.`);
  }
  if (url.username || url.password) {
    throw new ConfigError(
      "The base URL must not contain credentials; put the key in OPENAI_API_KEY or ANTHROPIC_API_KEY instead.",
    );
  }
  return value.replace(/\/+$/, "");
}

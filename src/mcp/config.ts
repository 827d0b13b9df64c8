import { closestMatch } from "leven";

// MCP server entries in the shape users already have (Claude Code's `.mcp.json`), checked and with
// `${VAR}` expanded. A server is code execution or a remote with a token: nothing here prints a value.
import { separatorProblem } from "./tool-rules.ts";

/** One server to start over stdio: a command nex runs with a clean environment plus `env`. */
export interface StdioServerConfig {
  type: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** One remote server: streamable HTTP (`http`) or the older HTTP+SSE (`sse`). */
export interface RemoteServerConfig {
  type: "http" | "sse";
  url: string;
  headers: Record<string, string>;
}

/** Limits nex adds to an entry (Claude Code's files have none; defaults apply). */
export interface ServerLimits {
  /** Most a handshake and the first tool list may take (5 s). */
  startupTimeoutMs: number;
  /** Most one tool call may take with no progress from the server (120 s). */
  callTimeoutMs: number;
  /**
   * Whether calls of tools the server marks `readOnlyHint` may run side by side (true unless the
   * entry says `"readOnlyHints": false`). The hint buys nothing else: such a call still asks and
   * is still checkpointed like any other of the server's calls.
   */
  parallelReads: boolean;
  /** Most one tool call may take in all, progress or not (30 min, never below `callTimeoutMs`). */
  totalTimeoutMs: number;
}

/** A checked server entry: where it came from and how to reach it. */
export type McpServerConfig = (StdioServerConfig | RemoteServerConfig) & {
  name: string;
  /** Values `${VAR}` put into the entry (a token in `args` or `url` is as secret as one in `env`). */
  substituted: { variable: string; value: string }[];
  /** Where the entry was read: `config`, `--mcp-config FILE`, or the project's `.mcp.json`. */
  source: string;
  limits: ServerLimits;
};

/** An entry whose variables could not all be expanded: reported, never started. */
export interface UnusableServer {
  name: string;
  source: string;
  problem: string;
}

/** A file or config value nex cannot read as MCP servers; the message says what to change. */
export class McpConfigError extends Error {
  override readonly name = "McpConfigError";
}

const NAME = /^[A-Za-z0-9_-]{1,48}$/;
/** Other tools' keys that pre-approve tools: never honoured. */
const GRANT_KEYS = new Set(["autoApprove", "alwaysAllow", "alwaysAllowTools", "trust"]);
const KNOWN_KEYS = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "startupTimeoutSeconds",
  "timeoutSeconds",
  "readOnlyHints",
  "totalTimeoutSeconds",
]);

/**
 * Reads the `mcpServers` object of one source. Shape errors throw McpConfigError (they are the
 * user's to fix before anything starts); an unset `${VAR}` makes only that server unusable; keys
 * of other tools are notices.
 */
export function parseServers(
  value: unknown,
  source: string,
  env: Record<string, string | undefined>,
): { servers: McpServerConfig[]; unusable: UnusableServer[]; notices: string[] } {
  if (value === undefined) return { servers: [], unusable: [], notices: [] };
  if (!isRecord(value))
    throw new McpConfigError(
      `${source}: \`mcpServers\` must be an object of servers by name, like {"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."]}}.`,
    );
  const servers: McpServerConfig[] = [];
  const unusable: UnusableServer[] = [];
  const notices: string[] = [];
  for (const [name, entry] of Object.entries(value)) {
    const where = `${source}: MCP server "${name}"`;
    if (!NAME.test(name))
      throw new McpConfigError(
        `${where}: a server name may use only letters, digits, _ and - (at most 48), since it becomes part of tool names (mcp__${"<server>"}__<tool>). Rename it.`,
      );
    const blurred = separatorProblem(name);
    if (blurred)
      throw new McpConfigError(
        `${where}: ${blurred}, so a permission rule such as mcp__<server>__* could name another server's tools. Rename it (letters, digits, single _ or - inside).`,
      );
    if (!isRecord(entry))
      throw new McpConfigError(`${where} must be an object with a "command" or a "url".`);
    // The same file serves other tools, which add keys of their own: a key nex does not know is
    // said and left alone. `disabled` is honoured (the user turned the server off); nothing in the
    // file pre-approves a tool (`autoApprove`, `alwaysAllow`): approvals are the user's, asked.
    if (entry.disabled === true) {
      notices.push(`${where} is disabled ("disabled": true) and not started.`);
      continue;
    }
    const unknown = Object.keys(entry).filter((key) => !KNOWN_KEYS.has(key) && key !== "disabled");
    const grants = unknown.filter((key) => GRANT_KEYS.has(key));
    if (grants.length > 0)
      notices.push(
        `${where}: ${grants.map((k) => `"${k}"`).join(", ")} ignored: nex asks before a tool runs, whatever a file says.`,
      );
    let typo = "";
    for (const key of unknown.filter((key) => !GRANT_KEYS.has(key))) {
      const near = closestMatch(key, [...KNOWN_KEYS], { maxDistance: 2 });
      if (near) typo = ` ("${key}" is not a key: did you mean "${near}"?)`;
      notices.push(
        `${where}: unknown key "${key}" ignored${near ? ` (did you mean "${near}"?)` : ""}; nex reads ${[...KNOWN_KEYS].join(", ")}, disabled.`,
      );
    }
    const problems: string[] = [];
    const substituted: McpServerConfig["substituted"] = [];
    const expand = (text: string, field: string) =>
      expandVariables(text, env, field, problems, substituted);
    const limits = readLimits(entry, where);
    const type = entry.type ?? (entry.url !== undefined ? "http" : "stdio");
    if (type === "stdio") {
      if (typeof entry.command !== "string" || entry.command.trim() === "")
        throw new McpConfigError(
          `${where} needs "command": the program to run (or "type": "http" with a "url")${typo}.`,
        );
      if (entry.url !== undefined || entry.headers !== undefined)
        throw new McpConfigError(
          `${where} has both "command" and "url"/"headers"; a stdio server has a command, a remote one a url.`,
        );
      const args = stringList(entry.args, `${where} "args"`);
      const envEntries = stringMap(entry.env, `${where} "env"`);
      if (entry.cwd !== undefined && typeof entry.cwd !== "string")
        throw new McpConfigError(`${where} "cwd" must be a string (a directory).`);
      const config: McpServerConfig = {
        type: "stdio",
        name,
        source,
        substituted,
        limits,
        command: expand(entry.command, "command"),
        args: args.map((arg, i) => expand(arg, `args[${i}]`)),
        env: Object.fromEntries(
          Object.entries(envEntries).map(([key, text]) => [key, expand(text, `env.${key}`)]),
        ),
        ...(typeof entry.cwd === "string" ? { cwd: expand(entry.cwd, "cwd") } : {}),
      };
      if (problems.length > 0) unusable.push({ name, source, problem: problems.join("; ") });
      else servers.push(config);
      continue;
    }
    if (type !== "http" && type !== "sse")
      throw new McpConfigError(
        `${where} has "type": ${JSON.stringify(type)}; use "stdio" (a command), "http" (streamable HTTP) or "sse" (older HTTP+SSE).`,
      );
    if (typeof entry.url !== "string")
      throw new McpConfigError(`${where} ("type": "${type}") needs "url"${typo}.`);
    if (entry.command !== undefined || entry.args !== undefined || entry.env !== undefined)
      throw new McpConfigError(
        `${where} has both "url" and "command"/"args"/"env"; a remote server has a url, a stdio one a command.`,
      );
    const headers = stringMap(entry.headers, `${where} "headers"`);
    const url = expand(entry.url, "url");
    const expandedHeaders = Object.fromEntries(
      Object.entries(headers).map(([key, text]) => [key, expand(text, `headers.${key}`)]),
    );
    if (problems.length > 0) {
      unusable.push({ name, source, problem: problems.join("; ") });
      continue;
    }
    const parsed = URL.parse(url);
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
      throw new McpConfigError(`${where} "url" must be an http:// or https:// URL.`);
    if (parsed.username || parsed.password)
      throw new McpConfigError(
        `${where} "url" must not hold credentials; put a token in "headers" (for example "Authorization": "Bearer \${MY_TOKEN}").`,
      );
    servers.push({ type, name, source, substituted, limits, url, headers: expandedHeaders });
  }
  return { servers, unusable, notices };
}

/**
 * `${VAR}` and `${VAR:-default}`, as Claude Code expands them. An unset variable without a default
 * is a problem named by field and variable, never by value.
 */
export function expandVariables(
  text: string,
  env: Record<string, string | undefined>,
  field: string,
  problems: string[],
  substituted: { variable: string; value: string }[] = [],
): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_match, name: string, fallback) => {
      const value = env[name];
      if (value !== undefined && value !== "") {
        substituted.push({ variable: name, value });
        return value;
      }
      if (fallback !== undefined) return fallback;
      problems.push(`\${${name}} in ${field} is not set (set it, or write \${${name}:-default})`);
      return "";
    },
  );
}

// A variable whose name says it holds a secret, wherever it is put (args, url).
const SECRET_NAME = /KEY|TOKEN|SECRET|PASS|AUTH|CRED|COOKIE|SESSION|PAT$/i;
// A path in `env` (a root folder, a config file) is not hidden: scrubbing it would blank the
// workspace's own paths out of every result.
const PATH_LIKE = /^(?:\/|~\/|\.\.?\/)\S*$/;

/** The values of an entry that are secrets: every env value and every header value (and a bearer token alone). */
export function secretValues(server: McpServerConfig): { name: string; value: string }[] {
  const found: { name: string; value: string }[] = server.substituted
    .filter((entry) => SECRET_NAME.test(entry.variable))
    .map((entry) => ({ name: entry.variable, value: entry.value }));
  if (server.type === "stdio") {
    for (const [key, value] of Object.entries(server.env))
      if (!PATH_LIKE.test(value)) found.push({ name: `mcp ${server.name} env ${key}`, value });
  } else {
    for (const [key, value] of Object.entries(server.headers)) {
      found.push({ name: `mcp ${server.name} header ${key}`, value });
      const token = /^\s*\S+\s+(\S{8,})\s*$/.exec(value)?.[1];
      if (token) found.push({ name: `mcp ${server.name} header ${key}`, value: token });
    }
  }
  return found;
}

function readLimits(entry: Record<string, unknown>, where: string): ServerLimits {
  const seconds = (key: string, fallback: number, max: number): number => {
    const value = entry[key];
    if (value === undefined) return fallback * 1000;
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0 || value > max)
      throw new McpConfigError(`${where} "${key}" must be a number of seconds from 1 to ${max}.`);
    return value * 1000;
  };
  const hints = entry.readOnlyHints;
  if (hints !== undefined && typeof hints !== "boolean")
    throw new McpConfigError(
      `${where} "readOnlyHints" must be true or false (false: run its calls one at a time whatever the server says).`,
    );
  const callTimeoutMs = seconds("timeoutSeconds", 120, 3600);
  const totalTimeoutMs =
    entry.totalTimeoutSeconds === undefined
      ? Math.max(callTimeoutMs, 30 * 60_000)
      : seconds("totalTimeoutSeconds", 1800, 86_400);
  if (totalTimeoutMs < callTimeoutMs)
    throw new McpConfigError(
      `${where} "totalTimeoutSeconds" (${totalTimeoutMs / 1000}) must be at least its "timeoutSeconds" (${callTimeoutMs / 1000}).`,
    );
  return {
    startupTimeoutMs: seconds("startupTimeoutSeconds", 5, 120),
    callTimeoutMs,
    totalTimeoutMs,
    parallelReads: hints !== false,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function stringList(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string"))
    throw new McpConfigError(`${where} must be a list of strings.`);
  return value as string[];
}

function stringMap(value: unknown, where: string): Record<string, string> {
  if (value === undefined) return {};
  if (!isRecord(value) || Object.values(value).some((item) => typeof item !== "string"))
    throw new McpConfigError(`${where} must be an object of string values.`);
  return value as Record<string, string>;
}

// `nex mcp list|add|remove|test|approve`: the user's view of their MCP servers. Nothing here prints
// an env value or a header value: only their names.
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { McpConfigError, parseServers } from "../../mcp/config.ts";
import { loadProcesses, readOwnFile } from "../../tools/index.ts";
import {
  ConfigError,
  type ConfigFlags,
  configFilePath,
  prepareDataDir,
  resolveConfig,
} from "../config/index.ts";
import { sessionScrubber, textRedaction, toolEnvironment } from "../secrets/index.ts";
import { mcpFetchFor } from "./mcp-fetch.ts";
import { approveProject, gatherMcpServers, mcpSecrets } from "./mcp-servers.ts";
import { describeServers, startMcpSession } from "./mcp-session.ts";
import { oauthDirOf } from "./oauth-dir.ts";

/** One `nex mcp` invocation. */
export interface McpCommand {
  action: string;
  name: string | null;
  /** `add`: the command and its arguments (after `--`), or the URL. */
  target: string[];
  transport?: string | undefined;
  env: string[];
  headers: string[];
  /** `list` and `test`: the servers as a JSON array. */
  json?: boolean;
}

type Env = Record<string, string | undefined>;

export const MCP_HELP = `nex mcp: the MCP servers whose tools nex offers the model

  nex mcp list [--json]                every server (config, --mcp-config, the project's .mcp.json): state, tools, last error
  nex mcp test NAME                    start one server alone, list its tools, say why it fails
  nex mcp add NAME -- COMMAND [ARGS]   add a stdio server to the config file (--env KEY=VALUE, repeatable)
  nex mcp add NAME URL                 add a remote server (--transport http|sse, --header "Name: value")
  nex mcp remove NAME                  remove a server from the config file
  nex mcp approve                      start the servers of this project's .mcp.json from now on
  nex mcp login NAME                   sign in to a remote server that asks for OAuth (tokens kept 0600)

Write secrets as \${VAR} (expanded from nex's environment when it starts), not as values.`;

/** Runs one `nex mcp` command; returns the exit status. */
export async function runMcpCommand(
  command: McpCommand,
  flags: ConfigFlags,
  env: Env,
  cwd: string,
  out: (text: string) => void,
): Promise<number> {
  switch (command.action) {
    case "list":
    case "test":
      return listOrTest(command, flags, env, cwd, out);
    case "add":
      return add(command, flags, env, out);
    case "remove":
      return remove(command, flags, env, out);
    case "approve":
      return approve(flags, env, cwd, out);
    case "login":
      return login(command, flags, env, cwd, out);
    default:
      out(`${MCP_HELP}\n`);
      return command.action === "help" ? 0 : 2;
  }
}

/** The servers `nex mcp` works on: the config's, `--mcp-config` files', an approved project's. */
function serversOf(
  config: ReturnType<typeof resolveConfig>,
  flags: ConfigFlags,
  env: Env,
  cwd: string,
): ReturnType<typeof gatherMcpServers> {
  return gatherMcpServers({
    fromConfig: config.mcpServers,
    configPath: config.configPath,
    files: flags.mcpConfig ?? [],
    workspace: config.workspace,
    dataDir: config.dataDir,
    writable: config.sandbox.writable ?? [],
    env,
    cwd,
  });
}

async function listOrTest(
  command: McpCommand,
  flags: ConfigFlags,
  env: Env,
  cwd: string,
  out: (text: string) => void,
): Promise<number> {
  const config = resolveConfig(flags, env, cwd);
  const set = serversOf(config, flags, env, cwd);
  if (command.action === "test") {
    if (!command.name)
      throw new ConfigError("nex mcp test needs a server name: nex mcp test NAME.");
    const one = set.servers.filter((server) => server.name === command.name);
    const broken = set.unusable.filter((entry) => entry.name === command.name);
    if (one.length === 0 && broken.length === 0) {
      const known = [...set.servers, ...set.unusable].map((server) => server.name);
      const pending = set.project?.approved === false && set.project.names.includes(command.name);
      throw new ConfigError(
        pending
          ? `${command.name} is in this project's .mcp.json, which you have not approved; look at it, then run \`nex mcp approve\`.`
          : `No MCP server named ${command.name}${known.length > 0 ? `; the servers are: ${known.join(", ")}` : ""}.`,
      );
    }
    set.servers = one;
    set.unusable = broken;
  }
  const secrets = sessionScrubber(config, env, mcpSecrets(set, oauthDirOf(config, env)));
  prepareDataDir(config.dataDir);
  const session = await startMcpSession(set, {
    workspace: config.workspace,
    baseEnv: { ...toolEnvironment(env, config), ...(await loadProcesses()).ownerMark() },
    sessionDir: join(config.dataDir, "logs", `mcp-${command.action}`),
    oauthDir: oauthDirOf(config, env),
    redact: textRedaction(secrets),
    ...mcpFetchFor(config),
  });
  try {
    const rows = session.status();
    const text = command.json ? JSON.stringify(rows, null, 2) : describeServers(rows);
    out(`${textRedaction(secrets)(text)}
`);
    // Notices go with the table; a JSON reader gets the array alone.
    if (!command.json)
      for (const notice of set.notices)
        out(`${notice}
`);
    return rows.every((row) => row.state === "connected") ? 0 : 1;
  } finally {
    await session.close();
  }
}

function add(
  command: McpCommand,
  flags: ConfigFlags,
  env: Env,
  out: (text: string) => void,
): number {
  const name = command.name;
  if (!name || command.target.length === 0)
    throw new ConfigError(
      "nex mcp add needs a name and a command or URL: nex mcp add NAME -- COMMAND [ARGS], or nex mcp add NAME https://host/mcp.",
    );
  const [first = "", ...rest] = command.target;
  const remote = /^https?:\/\//.test(first) && rest.length === 0;
  const entry: Record<string, unknown> = remote
    ? {
        type: command.transport ?? "http",
        url: first,
        ...(command.headers.length > 0 ? { headers: pairs(command.headers, ":", "--header") } : {}),
      }
    : {
        command: first,
        ...(rest.length > 0 ? { args: rest } : {}),
        ...(command.env.length > 0 ? { env: pairs(command.env, "=", "--env") } : {}),
      };
  if (!remote && (command.transport ?? "stdio") !== "stdio")
    throw new ConfigError(`--transport ${command.transport} needs a URL, not a command.`);
  try {
    // Checked as nex will read it; variables need not be set yet.
    parseServers({ [name]: entry }, `nex mcp add ${name}`, new Proxy({}, { get: () => "x" }));
  } catch (error) {
    if (error instanceof McpConfigError) throw new ConfigError(error.message);
    throw error;
  }
  const path = configFilePath(flags, env);
  const file = readConfigObject(path);
  const servers = (file.mcpServers ?? {}) as Record<string, unknown>;
  const replaced = Object.hasOwn(servers, name);
  file.mcpServers = { ...servers, [name]: entry };
  writeConfigObject(path, file);
  out(
    `${replaced ? "Replaced" : "Added"} MCP server ${name} in ${path}. Try it with \`nex mcp test ${name}\`.\n`,
  );
  const literal = [...command.env, ...command.headers].filter((item) => !item.includes("${"));
  if (literal.length > 0)
    out(
      `Values given literally are stored as written in the config file; for a token, write \${VAR} and keep it in the environment.\n`,
    );
  return 0;
}

function remove(
  command: McpCommand,
  flags: ConfigFlags,
  env: Env,
  out: (text: string) => void,
): number {
  const name = command.name;
  if (!name) throw new ConfigError("nex mcp remove needs a server name: nex mcp remove NAME.");
  const path = configFilePath(flags, env);
  const file = readConfigObject(path);
  const servers = { ...((file.mcpServers ?? {}) as Record<string, unknown>) };
  if (!Object.hasOwn(servers, name))
    throw new ConfigError(
      `No MCP server named ${name} in ${path}${Object.keys(servers).length > 0 ? `; it has: ${Object.keys(servers).join(", ")}` : ""}. (A project's .mcp.json is edited by hand.)`,
    );
  delete servers[name];
  file.mcpServers = servers;
  writeConfigObject(path, file);
  out(`Removed MCP server ${name} from ${path}.\n`);
  return 0;
}

function approve(flags: ConfigFlags, env: Env, cwd: string, out: (text: string) => void): number {
  const config = resolveConfig(flags, env, cwd);
  const set = gatherMcpServers({
    fromConfig: undefined,
    configPath: null,
    files: [],
    workspace: config.workspace,
    dataDir: config.dataDir,
    writable: config.sandbox.writable ?? [],
    env,
    cwd,
  });
  const project = set.project;
  if (!project || project.names.length === 0) {
    out(`${join(config.workspace, ".mcp.json")} defines no MCP servers; nothing to approve.\n`);
    return 0;
  }
  try {
    approveProject(
      { env, workspace: config.workspace, writable: config.sandbox.writable ?? [] },
      project.hash,
    );
  } catch (error) {
    throw new ConfigError(`${(error as Error).message} Nothing was approved.`);
  }
  const described = readOwnFile(project.path, 1024 * 1024);
  const servers =
    described.type === "read"
      ? ((JSON.parse(described.text) as { mcpServers?: Record<string, Record<string, unknown>> })
          .mcpServers ?? {})
      : {};
  out(`Approved ${project.path}; from now on nex starts its servers in this project:\n`);
  for (const [name, entry] of Object.entries(servers)) {
    const what =
      typeof entry.url === "string"
        ? `${entry.type ?? "http"} ${entry.url}`
        : [entry.command, ...((entry.args as string[] | undefined) ?? [])].join(" ");
    out(`  ${name}: ${what}\n`);
  }
  out("If the file changes, nex asks again.\n");
  return 0;
}

async function login(
  command: McpCommand,
  flags: ConfigFlags,
  env: Env,
  cwd: string,
  out: (text: string) => void,
): Promise<number> {
  const config = resolveConfig(flags, env, cwd);
  const set = serversOf(config, flags, env, cwd);
  const server = set.servers.find((entry) => entry.name === command.name);
  if (!server || server.type === "stdio")
    throw new ConfigError(
      server
        ? `${server.name} is a stdio server; only remote (http, sse) servers sign in.`
        : `No MCP server named ${command.name ?? "(none given)"}: nex mcp login NAME, with NAME from \`nex mcp list\`.`,
    );
  prepareDataDir(config.dataDir);
  const { signIn } = await import("../../mcp/oauth-login.ts");
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  const timer = setTimeout(() => stop.abort(), 5 * 60_000);
  try {
    const tools = await signIn(server, oauthDirOf(config, env), {
      signal: stop.signal,
      show: (url) =>
        out(
          `Open this address in your browser to sign in to ${server.name} (waiting up to 5 minutes; Ctrl-C stops):\n${url.href}\n`,
        ),
    });
    out(
      `Signed in to ${server.name}: ${tools} tools. The tokens are kept (0600) under ${oauthDirOf(config, env)}.\n`,
    );
    return 0;
  } catch (error) {
    out(`The sign-in to ${server.name} did not complete: ${(error as Error).message}.\n`);
    return 1;
  } finally {
    clearTimeout(timer);
    process.off("SIGINT", onSignal);
  }
}

function pairs(items: string[], separator: string, flag: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const item of items) {
    const at = item.indexOf(separator);
    if (at <= 0)
      throw new ConfigError(
        `${flag} takes ${separator === "=" ? "KEY=VALUE" : '"Name: value"'}, not ${JSON.stringify(item.slice(0, 40))}.`,
      );
    result[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return result;
}

function readConfigObject(path: string): Record<string, unknown> {
  const read = readOwnFile(path, 1024 * 1024);
  if (read.type === "missing") return {};
  if (read.type === "refused" || read.truncated)
    throw new ConfigError(
      `The config file ${path} cannot be read as nex's config; fix or move it.`,
    );
  try {
    const value = JSON.parse(read.text) as unknown;
    if (typeof value === "object" && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
  } catch {}
  throw new ConfigError(`The config file ${path} is not a JSON object; fix it first.`);
}

function writeConfigObject(path: string, value: Record<string, unknown>): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
}

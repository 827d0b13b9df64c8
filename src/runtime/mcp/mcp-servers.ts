// Which MCP servers a session may start: the config file's, each `--mcp-config FILE`'s, and the
// project's `.mcp.json` only once the user approved that file (a server runs code on this machine).
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import {
  McpConfigError,
  type McpServerConfig,
  parseServers,
  secretValues,
  type UnusableServer,
} from "../../mcp/config.ts";
import { storedTokens } from "../../mcp/oauth-store.ts";
import type { KnownSecret } from "../../session/index.ts";
import { readOwnFile } from "../../tools/index.ts";
import { ConfigError } from "../config/index.ts";
import {
  approvalHash,
  approvedCode,
  approvedHash,
  type ConsentPlace,
  consentPlace,
  recordConsent,
} from "../consent/index.ts";

type Env = Record<string, string | undefined>;

/** The servers of one session, and what the user should know about the ones left out. */
export interface McpServerSet {
  servers: McpServerConfig[];
  unusable: UnusableServer[];
  notices: string[];
  /** The project's `.mcp.json`, when it has servers: approved or not, and its hash. */
  project: { path: string; hash: string; names: string[]; approved: boolean } | null;
}

const FILE_LIMIT = 1024 * 1024;
const SUBJECT = "mcp";

/** Gathers the servers; a file that cannot be read as servers is a ConfigError naming it. */
export function gatherMcpServers(options: {
  /** Gather nothing (a command that needs no tools). */
  skip?: boolean;
  fromConfig: unknown;
  /** Servers an editor passed for this session (ACP), in the same shape; they win over the config's. */
  fromEditor?: unknown;
  configPath: string | null;
  files: readonly string[];
  workspace: string;
  dataDir: string;
  /** The sandbox settings' extra writable folders (consent kept there would not be the user's). */
  writable?: readonly string[];
  env: Env;
  cwd: string;
}): McpServerSet {
  if (options.skip) return { servers: [], unusable: [], notices: [], project: null };
  const byName = new Map<string, McpServerConfig>();
  const unusable: UnusableServer[] = [];
  const notices: string[] = [];
  const add = (value: unknown, source: string) => {
    let parsed: ReturnType<typeof parseServers>;
    try {
      parsed = parseServers(value, source, options.env);
    } catch (error) {
      if (error instanceof McpConfigError) throw new ConfigError(error.message);
      throw error;
    }
    notices.push(...parsed.notices);
    for (const server of parsed.servers) byName.set(server.name, server);
    for (const entry of parsed.unusable) {
      byName.delete(entry.name);
      unusable.push(entry);
    }
  };
  add(options.fromConfig, options.configPath ?? "the config file");
  let project: McpServerSet["project"] = null;
  const projectPath = join(options.workspace, ".mcp.json");
  const projectFile = readServersFile(projectPath, false);
  if (projectFile) {
    const names = Object.keys(
      (projectFile.value as { mcpServers?: object } | null)?.mcpServers ?? {},
    );
    const consent = consentOf(options);
    // The approval covers the file and every workspace file its servers' commands run.
    const hash = approvalHash(
      projectFile.hash,
      approvedCode(launchLines(projectFile.value.mcpServers), options.workspace),
    );
    const before = approvedHash(consent, SUBJECT);
    const approved = before === hash;
    project = { path: projectPath, hash, names, approved };
    if (names.length > 0 && approved) add(projectFile.value.mcpServers, projectPath);
    else if (
      names.length > 0 &&
      !options.files.some((file) => resolve(options.cwd, file) === projectPath)
    )
      notices.push(
        `This project's .mcp.json defines MCP server${names.length > 1 ? "s" : ""} ${names.join(", ")}, not started: a server runs code on this machine${before ? " and the file, or a workspace file its servers run, changed since you approved it" : ""}. Look at it, then approve it once with \`nex mcp approve\`; headless, --mcp-config .mcp.json also starts it.${consent.refused ? ` (nex keeps no approval at ${consent.file}: ${consent.refused})` : ""}`,
      );
  }
  for (const file of options.files) {
    const path = resolve(options.cwd, file);
    const read = readServersFile(path, true);
    add(read?.value.mcpServers, `--mcp-config ${file}`);
  }
  // The editor's list is the user's choice, made in the editor: no project approval applies.
  if (options.fromEditor !== undefined) add(options.fromEditor, "the editor's session");
  return { servers: [...byName.values()], unusable, notices, project };
}

/** Every secret value of the servers (env values, header values and tokens), for the session's scrubber. */
export function mcpSecrets(set: McpServerSet, oauthDir: string): KnownSecret[] {
  return set.servers.flatMap((server) => [
    ...secretValues(server),
    ...(server.type === "stdio"
      ? []
      : storedTokens(oauthDir, server.name, server.url).map((value) => ({
          name: `mcp ${server.name} OAuth token`,
          value,
        }))),
  ]);
}

function readServersFile(
  path: string,
  explicit: boolean,
): { value: { mcpServers?: unknown }; hash: string } | null {
  const read = readOwnFile(path, FILE_LIMIT);
  if (read.type === "missing") {
    if (explicit)
      throw new ConfigError(
        `The MCP config file ${path} does not exist. Check the path given to --mcp-config.`,
      );
    return null;
  }
  if (read.type === "refused")
    throw new ConfigError(`The MCP config file ${path} was not read: ${read.reason}.`);
  if (read.truncated)
    throw new ConfigError(
      `The MCP config file ${path} is larger than 1 MiB; it is not an MCP config.`,
    );
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch (error) {
    throw new ConfigError(
      `The MCP config file ${path} is not valid JSON (${(error as Error).message}). Fix it${explicit ? "" : " or move it away"}.`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new ConfigError(
      `The MCP config file ${path} must hold an object like {"mcpServers": {...}}.`,
    );
  return { value: value as { mcpServers?: unknown }, hash: sha256(read.text) };
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

function consentOf(options: {
  env: Env;
  workspace: string;
  writable?: readonly string[];
}): ConsentPlace {
  return consentPlace({
    env: options.env,
    workspace: options.workspace,
    writable: options.writable ?? [],
  });
}

/** Each stdio server's command line, as words (for the workspace files it runs). */
function launchLines(servers: unknown): string[] {
  if (!servers || typeof servers !== "object") return [];
  return Object.values(servers as Record<string, unknown>).flatMap((entry) => {
    const e = entry as { command?: unknown; args?: unknown; cwd?: unknown } | null;
    if (typeof e?.command !== "string") return [];
    const words = [e.command, ...(Array.isArray(e.args) ? e.args : [])].filter(
      (word): word is string => typeof word === "string",
    );
    // A server started in its own `cwd` names its files from there.
    const cwd = typeof e.cwd === "string" ? e.cwd : null;
    return [words.join(" "), ...(cwd ? [words.map((word) => join(cwd, word)).join(" ")] : [])];
  });
}

/**
 * Why a crashed project server may not start again: its `.mcp.json`, or a workspace file its servers
 * run, changed since the session began under the user's approval (a command may have rewritten it).
 * Null for other servers, and while everything is as approved.
 */
export function projectRestartCheck(
  set: McpServerSet,
  workspace: string,
): ((server: McpServerConfig) => string | null) | null {
  const project = set.project;
  if (!project?.approved) return null;
  return (server) => {
    if (server.source !== project.path) return null;
    let now: string | null = null;
    try {
      const file = readServersFile(project.path, false);
      now = file
        ? approvalHash(file.hash, approvedCode(launchLines(file.value.mcpServers), workspace))
        : null;
    } catch {
      now = null;
    }
    return now === project.hash
      ? null
      : `${project.path}, or a workspace file its servers run, changed since you approved it (a command may have changed it); look at it, then approve it again with \`nex mcp approve\`.`;
  };
}

/** Records the user's approval of this exact `.mcp.json` (and what its servers run) for this workspace. */
export function approveProject(
  options: { env: Env; workspace: string; writable?: readonly string[] },
  hash: string,
): void {
  recordConsent(consentOf(options), SUBJECT, hash);
}

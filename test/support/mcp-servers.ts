// Real MCP servers from the npm registry, run as the tests' stdio servers, and helpers to write the
// `.mcp.json`-shaped files nex reads.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { json, type Script } from "./stub-endpoint.ts";

const require = createRequire(import.meta.url);

function binOf(pkg: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const bin = (require(manifest) as { bin: Record<string, string> }).bin;
  const entry = Object.values(bin)[0];
  if (!entry) throw new Error(`${pkg} has no bin entry`);
  return join(dirname(manifest), entry);
}

/** `@modelcontextprotocol/server-everything` over stdio: echo, get-sum, structured content, long runs, env. */
export function everythingServer(env: Record<string, string> = {}): object {
  return {
    command: process.execPath,
    args: [binOf("@modelcontextprotocol/server-everything"), "stdio"],
    env,
  };
}

/** `@modelcontextprotocol/server-filesystem` confined to `root`. */
export function filesystemServer(root: string): object {
  return {
    command: process.execPath,
    args: [binOf("@modelcontextprotocol/server-filesystem"), root],
  };
}

/** A server written for a test (a script run with this Node). */
export function scriptServer(path: string, env: Record<string, string> = {}): object {
  return { command: process.execPath, args: [path], env };
}

/** Writes `{"mcpServers": servers}` to `path` and returns it. */
export function writeMcpConfig(path: string, servers: Record<string, object>): string {
  writeFileSync(path, JSON.stringify({ mcpServers: servers }, null, 2));
  return path;
}

/** The arguments of a headless run against the stub endpoint. */
export function runArgs(url: string, dataDir: string, ...rest: string[]): string[] {
  return [
    "run",
    "--model",
    "stub-model",
    "--base-url",
    `${url}/v1`,
    "--data-dir",
    dataDir,
    ...rest,
  ];
}

/**
 * The stub's model list stating a 128k window (as vLLM does), so every MCP tool's schema is sent
 * with each request; on 32k and less they load on demand (`load_tools`).
 */
export const largeWindow: Record<string, Script> = {
  "GET /v1/models": json({ object: "list", data: [{ id: "stub-model", max_model_len: 131_072 }] }),
};

// The shape of a fault scenario, and the checks scenarios are built from. A scenario is data: what the
// workspace holds, what the endpoint answers, and what a safe agent must have done by the end.
import { existsSync, lstatSync, readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Sandbox } from "../support/cli.ts";
import type { LoggedRequest, Script } from "../support/stub-endpoint.ts";

/** The wire format a scenario speaks. */
export type Wire = "openai" | "anthropic";

/** What one finished scenario left behind: the facts its checks judge. */
export interface FaultOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Model requests only (chat/completions or messages), in order. */
  requests: LoggedRequest[];
  box: Sandbox;
  /** Milliseconds from the start of nex to its exit. */
  elapsedMs: number;
  wire: Wire;
}

/** A check: null when it holds, else what went wrong, in a few words. */
export type Check = (outcome: FaultOutcome) => string | null;

/** One fault scenario. */
export interface FaultScenario {
  name: string;
  wire: Wire;
  /** The outcome a safe agent must produce, in one line. */
  expect: string;
  /** Files in the workspace before the run (path relative to the workspace → content). */
  files?: Record<string, string>;
  /** Anything else the scenario needs before the run (a config, a symlink, a journal). */
  setup?: (box: Sandbox) => void | Promise<void>;
  /** Scripts the endpoint plays, one per model request, in order. */
  scripts?: Script[];
  /** Answer for every model request once `scripts` is used up. */
  always?: Script;
  /** Chooses the answer per request once `scripts` is used up (wins over `always`); may touch the workspace. */
  handler?: (request: LoggedRequest, index: number, box: Sandbox) => Script | Promise<Script>;
  /** `run` (default) or `resume --last`. */
  command?: "run" | "resume";
  /** Permission flags in place of the default `--yes` (e.g. `["--mode", "auto_edit"]`, or `[]` for ask). */
  permission?: string[];
  /** Extra environment for nex (e.g. a key). */
  env?: Record<string, string>;
  /** The task; default "do the task". */
  task?: string;
  checks: Check[];
  /** Runs outside the OS temp dir, so that commands in the sandbox (which gets its own /tmp) see `outside/`. */
  visible?: boolean;
  /** Why the scenario cannot run safely here (null: it can); it is then skipped, saying why. */
  skipUnless?: () => string | null;
  /** Needs bubblewrap: skipped on a developer machine without it (saying why), a failure in CI. */
  needsSandbox?: boolean;
  /** A known gap: the scenario runs and is reported, but a failure does not fail the suite. */
  todo?: string;
}

// ---------------------------------------------------------------- reading requests

/** Every tool result in a request, as the text the model reads, oldest first. */
export function toolResults(request: LoggedRequest | undefined): string[] {
  const body = request?.body as { messages?: unknown[] } | null | undefined;
  const out: string[] = [];
  for (const message of body?.messages ?? []) {
    const m = message as { role?: string; content?: unknown };
    if (m.role === "tool") out.push(textOf(m.content));
    if (m.role === "user" && Array.isArray(m.content)) {
      for (const block of m.content as Array<{ type?: string; content?: unknown }>) {
        if (block.type === "tool_result") out.push(textOf(block.content));
      }
    }
  }
  return out;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((part) => (part as { text?: string }).text ?? "").join("");
  }
  return content === undefined || content === null ? "" : JSON.stringify(content);
}

function short(text: string, max = 60): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

// ---------------------------------------------------------------- checks

/** nex exited with this status. */
export const exitCode =
  (expected: number): Check =>
  (o) =>
    o.code === expected ? null : `exit ${o.code}, expected ${expected}`;

/** nex exited with a non-zero status (a failure it reports, not a success). */
export const exitNonZero: Check = (o) =>
  o.code !== 0 && o.code !== null ? null : `exit ${o.code}, expected a failure`;

/** The endpoint received exactly this many model requests. */
export const requests =
  (expected: number): Check =>
  (o) =>
    o.requests.length === expected ? null : `${o.requests.length} requests, expected ${expected}`;

/** The endpoint received at most this many model requests. */
export const requestsAtMost =
  (max: number): Check =>
  (o) =>
    o.requests.length <= max ? null : `${o.requests.length} requests, expected at most ${max}`;

/** A file in the workspace holds exactly these bytes. */
export const fileIs =
  (path: string, content: string): Check =>
  (o) => {
    const actual = readOrNull(o.box.workspace, path);
    if (actual === null) return `${path} missing`;
    return actual === content
      ? null
      : `${path} is ${Buffer.byteLength(actual)} bytes, expected ${Buffer.byteLength(content)} byte-exact`;
  };

/** A path (relative to the workspace; may point outside it) does not exist. */
export const absent =
  (path: string): Check =>
  (o) =>
    existsAt(o.box.workspace, path) ? `${path} exists` : null;

/** The workspace holds nothing but these top-level entries. */
export const workspaceHolds =
  (...names: string[]): Check =>
  (o) => {
    const found = listDir(o.box.workspace).sort();
    const wanted = [...names].sort();
    return JSON.stringify(found) === JSON.stringify(wanted)
      ? null
      : `workspace holds [${found.join(", ")}], expected [${wanted.join(", ")}]`;
  };

/** A tool result in request `at` (0-based; default the second) told the model this. */
export const told =
  (pattern: RegExp, at = 1): Check =>
  (o) => {
    const request = at < 0 ? o.requests.at(at) : o.requests[at];
    if (!request) return `no request ${at} to carry a tool result`;
    const results = toolResults(request);
    if (results.some((text) => pattern.test(text))) return null;
    const last = results.at(-1);
    return last === undefined
      ? `request ${at} carries no tool result`
      : `model told "${short(last)}", expected ${pattern}`;
  };

/** No tool result in any request matches this (e.g. a success that must not have happened). */
export const neverTold =
  (pattern: RegExp): Check =>
  (o) => {
    for (const request of o.requests) {
      const hit = toolResults(request).find((text) => pattern.test(text));
      if (hit) return `model told "${short(hit)}"`;
    }
    return null;
  };

/** What nex printed on stderr matches this. */
export const stderrSays =
  (pattern: RegExp): Check =>
  (o) =>
    pattern.test(o.stderr) ? null : `stderr lacks ${pattern}: "${short(lastLine(o.stderr))}"`;

/** This string appears nowhere in nex's output. */
export const neverPrinted =
  (secret: string): Check =>
  (o) =>
    o.stdout.includes(secret) || o.stderr.includes(secret) ? "the key was printed" : null;

/** Every model request asked for at most this many output tokens. */
export const maxTokensAtMost =
  (max: number): Check =>
  (o) => {
    const over = o.requests.find((r) => maxTokensOf(r) > max);
    return over ? `request ${over.index} asked for max_tokens ${maxTokensOf(over)}` : null;
  };

/** Consecutive model requests were at least this far apart (a wait was honoured). */
export const gapsAtLeast =
  (ms: number): Check =>
  (o) => {
    for (let i = 1; i < o.requests.length; i++) {
      const gap = (o.requests[i]?.receivedAt ?? 0) - (o.requests[i - 1]?.receivedAt ?? 0);
      if (gap < ms) return `request ${i} came ${gap} ms after the previous one, expected ≥ ${ms}`;
    }
    return null;
  };

/**
 * nex ended within this many milliseconds (a long wait was surfaced, not slept through). The bound
 * sits between the wait and any run on a loaded machine, far from both; where the alternative to
 * ending is a hang, there is no bound: the suite's test timeout catches a hang.
 */
export const endedWithin =
  (ms: number): Check =>
  (o) =>
    o.elapsedMs <= ms ? null : `took ${o.elapsedMs} ms, expected under ${ms}`;

/** A custom check with its own message. */
export const holds =
  (what: string, predicate: (o: FaultOutcome) => boolean): Check =>
  (o) =>
    predicate(o) ? null : what;

export function maxTokensOf(request: LoggedRequest | undefined): number {
  const body = request?.body as { max_tokens?: number } | null | undefined;
  return body?.max_tokens ?? 0;
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split("\n")
      .filter((line) => line.trim() !== "")
      .at(-1) ?? ""
  );
}

function readOrNull(workspace: string, path: string): string | null {
  const abs = resolve(workspace, path);
  return existsSync(abs) ? readFileSync(abs, "utf8") : null;
}

function existsAt(workspace: string, path: string): boolean {
  try {
    lstatSync(resolve(workspace, path));
    return true;
  } catch {
    return false;
  }
}

function listDir(dir: string): string[] {
  return readdirSync(dir);
}

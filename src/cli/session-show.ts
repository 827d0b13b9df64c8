// `nex sessions` (the list) and `nex sessions show ID`: one session in words: where and when it ran, its model and role, its size,
// and the summary nex keeps beside its journal (what it did, what is left).
import { closeSync, openSync, readSync } from "node:fs";
import { formatSize } from "../protocol/counts.ts";
import { plainText } from "../protocol/plain-text.ts";
import { listSessionsFor } from "../runtime/assembly/index.ts";
import { ConfigError } from "../runtime/config/index.ts";
import { readSessionSummary } from "../runtime/session/index.ts";
import type { CommonOptions } from "./args.ts";

/** `nex sessions`: this workspace's sessions, newest first (`--json`: as a JSON array). */
export async function listSessions(options: CommonOptions): Promise<number> {
  const rows = await listSessionsFor(options, process.env, process.cwd());
  if (options.json) {
    const { terminalJson } = await import("../headless/terminal-json.ts");
    process.stdout.write(`${terminalJson(rows, 2)}\n`);
    return 0;
  }
  if (rows.length === 0) {
    process.stdout.write('No sessions yet. Start one with `nex` or `nex run "task"`.\n');
    return 0;
  }
  for (const row of rows) {
    // The first prompt says what a session is about; the last message is often the model's.
    const about = row.firstPrompt || row.lastMessage;
    process.stdout.write(
      plainText(
        `${row.sessionId}  ${row.startedAt}  ${row.messages} messages  ${formatSize(row.bytes)}  ${row.workspace}\n    ${about}\n`,
      ),
    );
  }
  return 0;
}

/** Prints the session `id` (a unique prefix, or "last"); returns the exit status. */
export async function showSession(options: CommonOptions, id: string): Promise<number> {
  const rows = await listSessionsFor(options, process.env, process.cwd());
  const matches =
    id === "last" ? rows.slice(0, 1) : rows.filter((row) => row.sessionId.startsWith(id));
  const exact = matches.find((row) => row.sessionId === id);
  if (matches.length === 0)
    throw new ConfigError(
      `No session "${id}" here; \`nex sessions\` lists the sessions of this workspace.`,
    );
  if (!exact && matches.length > 1)
    throw new ConfigError(
      `"${id}" names ${matches.length} sessions (${matches.map((row) => row.sessionId).join(", ")}); give more of the id.`,
    );
  const row = exact ?? (matches[0] as (typeof rows)[number]);
  const header = headerOf(row.journalPath);
  const summary = await readSessionSummary(row.journalPath);
  const lines = [
    `session ${row.sessionId}`,
    `  started   ${row.startedAt}`,
    `  workspace ${row.workspace}`,
    `  model     ${header.model ?? "unknown"}${header.host ? ` at ${header.host}` : ""}`,
    ...(header.role ? [`  role      ${header.role}`] : []),
    `  journal   ${row.journalPath} (${row.messages} messages, ${formatSize(row.bytes)})`,
    `  first     ${row.firstPrompt}`,
    "",
    summary
      ? `Summary (kept by nex every few prompts):\n${summary}`
      : "No summary yet: nex writes one after every 5 prompts that end with an answer.",
  ];
  process.stdout.write(`${plainText(lines.join("\n"))}\n`);
  return 0;
}

/** The journal's first line (its header), read within 64 KiB. */
function headerOf(path: string): { model?: string; host?: string; role?: string } {
  try {
    const fd = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(64 * 1024);
      const read = readSync(fd, buffer, 0, buffer.length, 0);
      const line = buffer.subarray(0, read).toString("utf8").split("\n")[0] ?? "";
      return JSON.parse(line) as { model?: string; host?: string; role?: string };
    } finally {
      closeSync(fd);
    }
  } catch {
    return {};
  }
}

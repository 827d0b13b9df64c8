// Workgraph's side of a chat folder in tests (docs/chat-files.md): the replies nex wrote, and waiting.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The lines of `outbox.jsonl`, parsed; none when nex has not written it. */
export function outbox(chat: string): Array<Record<string, unknown>> {
  const path = join(chat, "outbox.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Waits for `condition`, or fails naming `what`. */
export async function until(
  condition: () => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

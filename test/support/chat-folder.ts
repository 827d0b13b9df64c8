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

export { until } from "./until.ts";

/**
 * Workgraph's outbox writer (src/chat.rs, `append_message`), as a Python program: an exclusive
 * flock(2) on `outbox.jsonl.lock`, the largest id read, one line appended with O_APPEND, unlocked.
 * It appends until `stop` exists in the folder (at most `most` lines), each line `bytes` long.
 */
export const WORKGRAPH_WRITER = `
import fcntl, json, os, sys, time
folder, most, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
path = os.path.join(folder, "outbox.jsonl")
for n in range(most):
    if os.path.exists(os.path.join(folder, "stop")):
        break
    with open(os.path.join(folder, "outbox.jsonl.lock"), "a+") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        largest = 0
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    try:
                        largest = max(largest, json.loads(line)["id"])
                    except Exception:
                        pass
        # A slow reader of a long outbox: a writer that ignores the lock meets this one mid-append.
        time.sleep(0.005)
        line = json.dumps({"id": largest + 1, "timestamp": "2026-11-27T00:00:00Z", "role": "coordinator",
                           "content": "w" * size, "request_id": "wg-%d" % n}) + "\\n"
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.write(fd, line.encode())
        os.close(fd)
        fcntl.flock(lock, fcntl.LOCK_UN)
    time.sleep(0.001)
print(n)
`;

/** `nex --chat` on `chat` against the stub endpoint at `url`, keeping its data in `dataDir`. */
export function chatArgs(chat: string, url: string, dataDir: string): string[] {
  return [
    "--chat",
    chat,
    "--model",
    "stub-model",
    "--base-url",
    `${url}/v1`,
    "--data-dir",
    dataDir,
  ];
}

// Searching named files with ripgrep, reading its JSON lines.
import type { AddMatch, GrepResult } from "./grep-result.ts";

// Loaded on first use rather than at start-up: most sessions start no process for a while, if ever.
const childProcess = () => process.getBuiltinModule("node:child_process");
const readline = () => process.getBuiltinModule("node:readline");

/** Where and with which binary ripgrep runs. */
export interface RipgrepRun {
  binary: string;
  root: string;
  env: Record<string, string | undefined>;
}

/** ripgrep over named files: ignore rules are not its business here, the list already applied them. */
export async function ripgrepSearch(
  { binary, root, env }: RipgrepRun,
  regex: string,
  paths: string[],
  signal: AbortSignal,
  add: AddMatch,
  result: GrepResult,
): Promise<void> {
  const unsearched = result.unsearched;
  const args = [
    "--json",
    "--no-config",
    "--no-ignore",
    "--hidden",
    // One file after another, in the order given: matches come out sorted by path, as in JavaScript.
    "--sort",
    "path",
    // No BOM sniffing: the bytes are searched as they are, as the JavaScript search does.
    "--encoding",
    "none",
    "-e",
    regex,
    "--",
    ...paths,
  ];
  const child = childProcess().spawn(binary, args, {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    signal,
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 64_000) stderr += chunk.toString("utf8");
  });
  // Settled from the start, never rejected: an abort's error arrives while the lines are still read,
  // and a rejection nobody awaits yet would end the whole process.
  let failed: Error | null = null;
  const closed = new Promise<number | null>((resolve) => {
    child.on("error", (error) => {
      failed = error;
      resolve(null);
    });
    child.on("close", (code) => resolve(code));
  });
  type Text = { text?: string; bytes?: string };
  const textOf = (t: Text | undefined): string =>
    t?.text ?? (t?.bytes ? Buffer.from(t.bytes, "base64").toString("utf8") : "");
  // A file's matches wait for its end: one with a NUL byte anywhere is binary and shows none.
  let pending: { line: number; text: string }[] = [];
  try {
    for await (const line of readline().createInterface({ input: child.stdout })) {
      const event = JSON.parse(line) as {
        type: string;
        data: { path?: Text; lines?: Text; line_number?: number; binary_offset?: number | null };
      };
      if (event.type === "begin") pending = [];
      else if (event.type === "match")
        pending.push({ line: event.data.line_number ?? 0, text: textOf(event.data.lines) });
      else if (event.type === "end") {
        const path = textOf(event.data.path);
        if (event.data.binary_offset != null) {
          if (pending.length > 0) result.binary.push(path);
        } else for (const m of pending) add(path, m.line, m.text);
      }
    }
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  const code = await closed;
  signal.throwIfAborted();
  if (failed) throw failed;
  if (code === 0 || code === 1) return;
  if (code === 2) {
    // Each file ripgrep could not read is named on stderr: said, not dropped.
    for (const message of stderr.trim().split("\n")) {
      const m = /^(?:rg: )?(.+?): (.+?)(?: \(os error \d+\))?$/.exec(message);
      if (m?.[1]) unsearched.push({ path: m[1], reason: (m[2] ?? "").toLowerCase() });
    }
    if (unsearched.length > 0) return;
  }
  throw new Error(`ripgrep exited with ${code}: ${stderr.trim().slice(0, 2000)}`);
}

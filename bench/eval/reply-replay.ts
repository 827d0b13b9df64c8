// node bench/eval/reply-replay.ts EVENTS_DIR_OR_FILE... [--against DIR]: what nex makes of every
// recorded reply that came without a native tool call and was not interrupted: run as the JSON calls
// it is, told (and how), ended as an error, or taken as the answer. Reads each `*.events.jsonl` under
// the arguments; a reply's text is judged once however often it was recorded. With --against DIR (a
// checkout or a fixed copy of another commit, as the runner's --nex takes), the same replies are
// judged by that nex too and only those judged differently are listed: the check that a change to
// how replies are read changes what it should, and no real answer.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

/** The session's tools as a plain `nex run` offers them (the events do not record the list). */
const TOOLS = [
  "read_file",
  "write_file",
  "edit_file",
  "bash",
  "grep",
  "glob",
  "list_dir",
  "todo_write",
  "jobs",
  "load_tools",
];

interface Reply {
  where: string;
  text: string;
}

type Judge = (text: string) => Promise<string>;

function walk(path: string, out: string[] = []): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isFile() && path.endsWith(".events.jsonl")) out.push(path);
  else if (stat?.isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry), out);
  return out;
}

/** Each reply of one event stream that had no call and was not cut short by an interruption. */
function replies(file: string): Reply[] {
  const events = readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as { type?: string; message?: Record<string, unknown> }];
      } catch {
        return [];
      }
    });
  return events.flatMap((event, index) => {
    const message = event.message;
    if (event.type !== "message_added" || message?.type !== "assistant") return [];
    const calls = (message.toolCalls as unknown[] | undefined) ?? [];
    const text = typeof message.text === "string" ? message.text : "";
    // An interrupted reply is kept with a note and never judged as an answer.
    if (calls.length > 0 || !text.trim() || events[index + 1]?.type === "aborted") return [];
    return [{ where: `${file} event ${index + 1}`, text }];
  });
}

/** How the nex at `root` judges a reply without calls, as the loop does before it ends a run. */
async function judgeOf(root: string): Promise<Judge> {
  const { jsonReplyCalls } = await import(join(root, "src/agent/text-tool-call.ts"));
  const { replyNudge } = await import(join(root, "src/agent/reply-nudges.ts"));
  return async (text) => {
    const calls = jsonReplyCalls(text, TOOLS) as { name: string }[] | null;
    if (calls) return `runs ${calls.map((call) => call.name).join(", ")}`;
    const nudges = { askedForAnswer: true, textCalls: 0, lastTurn: false, runaways: 0 };
    const nudge = await replyNudge(text, TOOLS, nudges);
    if (nudge === null) return "the answer";
    return nudge.type === "ask" ? `told: ${nudge.notice}` : `error: ${nudge.message}`;
  };
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { against: { type: "string" } },
});
const seen = new Set<string>();
const all = positionals.flatMap((path) => walk(resolve(path))).flatMap(replies);
const distinct = all.filter((reply) => !seen.has(reply.text) && seen.add(reply.text));
const judge = await judgeOf(resolve(import.meta.dirname, "../.."));
const other = values.against ? await judgeOf(resolve(values.against)) : null;
const counts = new Map<string, number>();
let differ = 0;
for (const reply of distinct) {
  const verdict = await judge(reply.text);
  const kind = verdict === "the answer" ? "answers" : (verdict.split(/[: ]/)[0] ?? verdict);
  counts.set(kind, (counts.get(kind) ?? 0) + 1);
  const before = other ? await other(reply.text) : verdict;
  if (before === verdict) continue;
  differ += 1;
  console.log(`${reply.where}\n  text: ${JSON.stringify(reply.text.slice(0, 160))}`);
  console.log(
    `  ${values.against}: ${before.slice(0, 140)}\n  this tree: ${verdict.slice(0, 140)}`,
  );
}
const summary = [...counts].map(([kind, count]) => `${kind} ${count}`).join(", ");
console.log(
  `${distinct.length} distinct replies without calls (${all.length} recorded): ${summary}` +
    (other ? `; judged differently from ${values.against}: ${differ}` : ""),
);

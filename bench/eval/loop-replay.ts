// node bench/eval/loop-replay.ts [EVENTS_DIR_OR_FILE...] [--files DIR...] : replays recorded model
// replies through nex's loop watches as they would stream (5-character pieces), to choose and check
// their thresholds on real text. Reads every record's final answer under bench/eval/records, every
// reply (the text streamed per request) and tool result of each `*.events.jsonl` found under the
// arguments, and with --files every text file under DIR (real files a model might write). Prints
// each reply or file a watch fires on: where, what, and how far into the text.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  createClosedReasoningWatch,
  createLineLoopWatch,
} from "../../src/providers/turns/line-loop.ts";
import {
  createRepetitionWatch,
  type RepetitionWatch,
} from "../../src/providers/turns/repetition.ts";
import { createUnitLoopWatch } from "../../src/providers/turns/unit-loop.ts";

interface Text {
  kind: "answer" | "reply" | "tool result" | "file";
  where: string;
  text: string;
}

const PIECE = 5;
const TEXT_FILE = /\.(c|cjs|cpp|css|csv|h|html|js|json|log|md|mjs|py|sh|toml|ts|txt|ya?ml)$/;

function walk(path: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return out;
  if (stat.isFile()) {
    if (keep(path)) out.push(path);
    return out;
  }
  if (!stat.isDirectory()) return out;
  for (const entry of readdirSync(path)) walk(join(path, entry), keep, out);
  return out;
}

/** Each request's streamed text, and each tool result, of one event stream. */
function eventTexts(file: string): Text[] {
  const texts: Text[] = [];
  let reply: string[] | null = null;
  let request = 0;
  const flush = () => {
    if (reply)
      texts.push({ kind: "reply", where: `${file} request ${request}`, text: reply.join("") });
  };
  for (const line of readFileSync(file, "utf8").split("\n")) {
    let event: { type?: string; text?: string; content?: unknown };
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (event.type === "request_started") {
      flush();
      reply = [];
      request += 1;
    } else if (event.type === "text_delta" && reply) reply.push(String(event.text ?? ""));
    else if (event.type === "tool_result" && typeof event.content === "string")
      texts.push({ kind: "tool result", where: file, text: event.content });
  }
  flush();
  return texts;
}

function recordAnswers(dir: string): Text[] {
  return walk(dir, (file) => file.endsWith(".json")).flatMap((file) => {
    const record = JSON.parse(readFileSync(file, "utf8")) as {
      results?: { id: string; answer?: string }[];
    };
    return (record.results ?? []).flatMap((result) =>
      result.answer
        ? [{ kind: "answer" as const, where: `${file} ${result.id}`, text: result.answer }]
        : [],
    );
  });
}

/** Where the watch fires on `text` streamed in pieces: what it said and how far it read; null if never. */
function replay(watch: RepetitionWatch, text: string) {
  for (let at = 0; at < text.length; at += PIECE) {
    const found = watch.push(text.slice(at, at + PIECE));
    if (found) return { ...found, readTo: Math.min(at + PIECE, text.length) };
  }
  return null;
}

const args = process.argv.slice(2);
const split = args.indexOf("--files");
const eventPaths = split < 0 ? args : args.slice(0, split);
const fileDirs = split < 0 ? [] : args.slice(split + 1);
const here = new URL(".", import.meta.url).pathname;

const seen = new Set<string>();
const texts: Text[] = [];
const streams = eventPaths.flatMap((path) => walk(path, (file) => file.endsWith(".events.jsonl")));
let distinctStreams = 0;
for (const file of streams) {
  const digest = createHash("sha1").update(readFileSync(file)).digest("hex");
  if (seen.has(digest)) continue;
  seen.add(digest);
  distinctStreams += 1;
  texts.push(...eventTexts(file));
}
texts.push(...recordAnswers(join(here, "records")));
for (const dir of fileDirs)
  for (const file of walk(dir, (name) => TEXT_FILE.test(name) && statSync(name).size < 4 << 20))
    texts.push({ kind: "file", where: file, text: readFileSync(file, "utf8") });

const counts = new Map<
  string,
  {
    texts: number;
    empty: number;
    chars: number;
    calls: number;
    units: number;
    lines: number;
    closings: number;
  }
>();
for (const { kind, where, text } of texts) {
  const count = counts.get(kind) ?? {
    texts: 0,
    empty: 0,
    chars: 0,
    calls: 0,
    units: 0,
    lines: 0,
    closings: 0,
  };
  counts.set(kind, count);
  count.texts += 1;
  if (text === "") count.empty += 1;
  count.chars += text.length;
  for (const [name, watch] of [
    ["calls", createRepetitionWatch()],
    ["units", createUnitLoopWatch()],
    // The reasoning's watch, on every text as if it were reasoning (nex runs it on reasoning only).
    ["lines", createLineLoopWatch()],
    ["closings", createClosedReasoningWatch()],
  ] as const) {
    const found = replay(watch, text);
    if (!found) continue;
    count[name] += 1;
    const kept = Number.isFinite(found.keepChars) ? `, keeps ${found.keepChars}` : "";
    console.log(
      `${kind} ${where}: ${name} watch: ${found.detail}; read ${found.readTo} of ${text.length}${kept}`,
    );
  }
}
console.log(`\n${distinctStreams} distinct event streams (${streams.length} files)`);
for (const [kind, count] of counts)
  console.log(
    `${kind}: ${count.texts}, ${count.empty} of them empty (${(count.chars / 1e6).toFixed(2)} MB); the call watch fires on ${count.calls}, the unit watch on ${count.units}, the line watch (as if reasoning) on ${count.lines}, the closings watch on ${count.closings}`,
  );

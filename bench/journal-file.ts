// Synthetic session journals of 1k to 1M messages for the resume benchmark, written directly in the
// journal's JSONL format (as session/journal.ts writes it: message records with running seq/tok, a usage
// record after each assistant message, ledger records, and a ledger snapshot per ~128 KB) with large
// buffered writes. They are kept in the OS temp dir and reused by later runs: a 1M-message journal is
// about half a gigabyte.
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "../src/protocol/index.ts";
import { cheapTokens } from "../src/session/tokens.ts";
import { conversation } from "../test/session/fixtures.ts";

// Bump when the synthetic content or the journal format changes, so stale files are not reused.
const FORMAT = 1;
const TEMPLATE = 10_000;
const FLUSH_BYTES = 8 * 1024 * 1024;
const SNAPSHOT_MIN_BYTES = 128 * 1024;
const TS = "2026-01-01T00:00:00.000Z";

/** Where the synthetic journals are kept between runs (delete it to reclaim ~1.2 GB). */
export const cacheDir = join(tmpdir(), "nex-bench-journals", `v${FORMAT}`);

/** A synthetic journal in a data directory of its own, for a workspace of its own. */
export interface BenchJournal {
  messages: number;
  path: string;
  dataDir: string;
  workspace: string;
  bytes: number;
  /** True when this run wrote it (false: reused from an earlier run). */
  built: boolean;
  buildMs: number;
}

interface Template {
  json: string[];
  tokens: number[];
  types: Message["type"][];
}

let template: Template | null = null;

function loadTemplate(): Template {
  if (template) return template;
  const messages = conversation(TEMPLATE, 7);
  template = {
    json: messages.map((m) => JSON.stringify(m)),
    tokens: messages.map((m) => cheapTokens(m)),
    types: messages.map((m) => m.type),
  };
  return template;
}

function write(path: string, id: string, workspace: string, count: number): number {
  const t = loadTemplate();
  const fd = openSync(path, "w", 0o600);
  let buffer: string[] = [];
  let buffered = 0;
  let total = 0;
  const put = (line: string) => {
    buffer.push(line);
    buffered += line.length;
    if (buffered >= FLUSH_BYTES) flush();
  };
  const flush = () => {
    const bytes = Buffer.from(buffer.join(""), "utf8");
    let done = 0;
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done);
    total += bytes.length;
    buffer = [];
    buffered = 0;
  };
  const meta = { id, workspace, provider: "openai", model: "bench-model", host: "127.0.0.1" };
  put(`${JSON.stringify({ v: 1, type: "session", ts: TS, ...meta, createdAt: TS })}\n`);
  const ledger = new Map<string, string>();
  let sinceSnapshot = 0;
  let lastSnapshot = 0;
  const snapshot = () => {
    const line = `{"v":1,"type":"ledger_snapshot","ts":"${TS}","records":[${[...ledger.values()].join(",")}]}\n`;
    put(line);
    lastSnapshot = line.length;
    sinceSnapshot = 0;
  };
  const record = (line: string) => {
    put(line);
    sinceSnapshot += line.length;
    if (sinceSnapshot >= Math.max(SNAPSHOT_MIN_BYTES, 4 * lastSnapshot)) snapshot();
  };
  let tok = 0;
  for (let seq = 1; seq <= count; seq++) {
    const i = (seq - 1) % TEMPLATE;
    tok += t.tokens[i] as number;
    record(
      `{"v":1,"type":"message","ts":"${TS}","seq":${seq},"tok":${tok},"message":${t.json[i]}}\n`,
    );
    if (t.types[i] === "assistant") {
      record(
        `{"v":1,"type":"usage","ts":"${TS}","inputTokens":${Math.min(tok, 30_000)},"outputTokens":200,"messages":${seq},"estimatedTokens":null}\n`,
      );
    }
    if (seq % 50 === 0) {
      const path = `${workspace}/src/f${seq % 40}.ts`;
      const entry = JSON.stringify({
        path,
        hash: String(seq),
        mtimeMs: seq,
        size: seq,
        complete: true,
      });
      ledger.set(path, entry);
      record(`{"v":1,"type":"ledger","ts":"${TS}","record":${entry}}\n`);
    }
  }
  flush();
  closeSync(fd);
  return total;
}

/**
 * The journal of `messages` messages, built on first use and reused after. A resume appends to it:
 * `restoreJournal` cuts it back to its built size, and this does too if an earlier run stopped before.
 */
export function ensureJournal(messages: number): BenchJournal {
  const workspace = join(cacheDir, "workspace");
  const dataDir = join(cacheDir, `data-${messages}`);
  const sessions = join(dataDir, "sessions");
  const metaFile = join(cacheDir, `${messages}.json`);
  mkdirSync(workspace, { recursive: true });
  if (existsSync(metaFile)) {
    const known = JSON.parse(readFileSync(metaFile, "utf8")) as { path: string; bytes: number };
    if (existsSync(known.path) && statSync(known.path).size >= known.bytes) {
      const journal = { messages, dataDir, workspace, built: false, buildMs: 0, ...known };
      restoreJournal(journal);
      return journal;
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(sessions, { recursive: true, mode: 0o700 });
  // A valid session id, distinct per size: `nex resume --last` finds the journal by its header.
  const id = `20260101-000000-${messages.toString(36).padStart(4, "0").slice(-4)}`;
  const path = join(sessions, `${id}.jsonl`);
  const start = performance.now();
  const bytes = write(path, id, workspace, messages);
  const buildMs = performance.now() - start;
  writeFileSync(metaFile, JSON.stringify({ path, bytes }));
  return { messages, path, dataDir, workspace, bytes, built: true, buildMs };
}

/** Undoes what a resume added: records appended to the journal, and any other file in its data directory. */
export function restoreJournal(journal: BenchJournal): void {
  truncateSync(journal.path, journal.bytes);
  for (const name of readdirSync(journal.dataDir)) {
    if (name !== "sessions") rmSync(join(journal.dataDir, name), { recursive: true, force: true });
  }
  const sessions = join(journal.dataDir, "sessions");
  for (const name of readdirSync(sessions)) {
    const path = join(sessions, name);
    if (path !== journal.path) rmSync(path, { recursive: true, force: true });
  }
}

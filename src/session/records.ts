import type { AgentEvent, Message, ReadRecord } from "../protocol/index.ts";
import { parseJson } from "../protocol/index.ts";

/** The journal format version written in every record's `v`. */
export const JOURNAL_VERSION = 1;

/** The first line of a journal: who, where, with what. The endpoint is kept as a host only, never a key. */
export interface SessionMeta {
  id: string;
  workspace: string;
  provider: string;
  model: string;
  host: string;
  createdAt: string;
  /** `--role NAME` the session was started with (absent: none). */
  role?: string;
}

interface RecordBase {
  v: 1;
  ts: string;
}

/** First line of every journal. */
export interface SessionRecord extends RecordBase, SessionMeta {
  type: "session";
}

/** One conversation message; `seq` and `tok` are running totals so the last record tells the journal's size. */
export interface MessageRecord extends RecordBase {
  type: "message";
  /** 1-based number of this message in the session. */
  seq: number;
  /** Cheap cumulative token estimate of messages 1..seq (bytes/3.5 plus overhead), not a tokenizer count. */
  tok: number;
  message: Message;
}

/** One read-ledger entry; on load the newest entry per path wins. */
export interface LedgerRecord extends RecordBase {
  type: "ledger";
  record: ReadRecord;
}

/** The whole read ledger at this point: everything older is superseded, so a backward scan may stop here. */
export interface LedgerSnapshotRecord extends RecordBase {
  type: "ledger_snapshot";
  records: ReadRecord[];
}

/** An `AgentEvent` the runtime chose to keep, stored as given (after the secret scrub). */
export interface EventRecord extends RecordBase {
  type: "event";
  event: AgentEvent;
}

/** A workspace checkpoint taken at a turn boundary. */
export interface CheckpointRecord extends RecordBase {
  type: "checkpoint";
  turn: number;
  description: string;
}

/** What a compaction recorded: the summary replaces every message before `firstKeptSeq`. */
export interface CompactionInfo {
  summary: string;
  /** How many in-memory messages the summary replaced (a previous summary counts as one). */
  replacedMessages: number;
  /** `seq` of the first message kept after the summary. */
  firstKeptSeq: number;
  tokensBefore: number;
  tokensAfter: number;
}

/** A compaction, journaled after the messages it keeps. */
export interface CompactionRecord extends RecordBase, CompactionInfo {
  type: "compaction";
}

/**
 * The user started a fresh conversation (`/clear`): no message up to `lastSeq` belongs to the
 * conversation any more, and the read ledger restarts empty (a snapshot follows).
 */
export interface ClearRecord extends RecordBase {
  type: "clear";
  lastSeq: number;
}

/**
 * The user rewound (`/rewind`): the newest `drop` messages of the conversation as it stood before
 * this record leave it, and the read ledger restarts empty (a snapshot follows). One line, so a
 * rewind is in the journal whole or not at all.
 */
export interface RewindRecord extends RecordBase {
  type: "rewind";
  drop: number;
}

/** Token usage the endpoint reported for one request. */
export interface UsageInfo {
  inputTokens: number;
  outputTokens: number;
  /** The raw (uncorrected) estimate of the same request, when known: the basis of estimate correction. */
  estimatedTokens?: number | null;
}

/** Usage reported by the endpoint, with the message count at that time. */
export interface UsageRecord extends RecordBase {
  type: "usage";
  inputTokens: number;
  outputTokens: number;
  messages: number;
  estimatedTokens: number | null;
}

/** Every line of a journal. */
export type JournalRecord =
  | SessionRecord
  | MessageRecord
  | LedgerRecord
  | LedgerSnapshotRecord
  | EventRecord
  | CheckpointRecord
  | CompactionRecord
  | ClearRecord
  | RewindRecord
  | UsageRecord;

/** The `type` of a journal record. */
export type RecordType = JournalRecord["type"];

/** A line that parsed into a record, or why it did not. */
export type ParsedLine = { ok: true; record: JournalRecord } | { ok: false; reason: string };

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === "string";
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

export function isReadRecord(v: unknown): v is ReadRecord {
  return (
    isObj(v) &&
    isStr(v.path) &&
    isStr(v.hash) &&
    isNum(v.mtimeMs) &&
    isNum(v.size) &&
    typeof v.complete === "boolean"
  );
}

export function isMessage(v: unknown): v is Message {
  if (!isObj(v)) return false;
  if (v.type === "user") return isStr(v.text);
  if (v.type === "tool_result") {
    return (
      isStr(v.toolCallId) && isStr(v.toolName) && isStr(v.content) && typeof v.isError === "boolean"
    );
  }
  if (v.type !== "assistant" || !isStr(v.text) || !Array.isArray(v.toolCalls)) return false;
  return v.toolCalls.every(
    (c: unknown) => isObj(c) && isStr(c.id) && isStr(c.name) && isStr(c.argumentsText),
  );
}

function validShape(r: Obj): boolean {
  switch (r.type) {
    case "session":
      return [r.id, r.workspace, r.provider, r.model, r.host, r.createdAt].every(isStr);
    case "message":
      return isNum(r.seq) && isNum(r.tok) && isMessage(r.message);
    case "ledger":
      return isReadRecord(r.record);
    case "ledger_snapshot":
      return Array.isArray(r.records) && r.records.every(isReadRecord);
    case "event":
      return isObj(r.event) && isStr(r.event.type);
    case "checkpoint":
      return isNum(r.turn) && isStr(r.description);
    case "compaction":
      return (
        isStr(r.summary) &&
        [r.replacedMessages, r.firstKeptSeq, r.tokensBefore, r.tokensAfter].every(isNum)
      );
    case "clear":
      return isNum(r.lastSeq);
    case "rewind":
      return isNum(r.drop) && Number.isInteger(r.drop) && r.drop >= 0;
    case "usage":
      return (
        [r.inputTokens, r.outputTokens, r.messages].every(isNum) &&
        (r.estimatedTokens === null || isNum(r.estimatedTokens))
      );
    default:
      return false;
  }
}

/** Parses one journal line; never throws. */
export function parseRecord(line: string): ParsedLine {
  let value: unknown;
  try {
    value = parseJson(line);
  } catch {
    return { ok: false, reason: "not valid JSON" };
  }
  if (!isObj(value)) return { ok: false, reason: "not a JSON object" };
  if (value.v !== JOURNAL_VERSION) {
    return { ok: false, reason: `unsupported record version ${JSON.stringify(value.v)}` };
  }
  if (!isStr(value.type)) return { ok: false, reason: "no record type" };
  if (!validShape(value)) return { ok: false, reason: `malformed "${value.type}" record` };
  return { ok: true, record: value as unknown as JournalRecord };
}

const SNIFF = /^\{"v":1,"type":"([a-z_]+)"/;

/**
 * The record type read from the first bytes of a line as this module writes it (`v`, then `type`),
 * so a backward scan can skip lines without decoding them. Null when the line has another shape.
 */
export function sniffType(bytes: Uint8Array): string | null {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 40));
  return SNIFF.exec(head.toString("latin1"))?.[1] ?? null;
}

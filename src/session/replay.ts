import { open } from "node:fs/promises";
import type { Message, ReadRecord, ToolResultMessage, UserMessage } from "../protocol/index.ts";
import { describeBadLine, parseHeader } from "./journal.ts";
import { type ReadCounter, readFirstLine, readLinesBackward } from "./line-reader.ts";
import { type CompactionRecord, parseRecord, type SessionMeta, sniffType } from "./records.ts";
import { SequenceCheck } from "./sequence-check.ts";
import { cheapTokens, createTokenEstimator, type TokenEstimator } from "./tokens.ts";
import { chooseStart, closeOpenCalls, safeStarts } from "./tool-pairs.ts";

/**
 * Resume within the window. The journal is read from its end in blocks and reading stops once the budget
 * is full, so the cost follows what is kept, not the journal's length. From the tail it takes:
 * - the newest messages that fit `budgetTokens` (real tokenizer, corrected by the newest `usage` record
 *   that carries an estimate), never separating a tool call from its result;
 * - the newest `compaction` record met before the budget fills: its summary leads the kept messages, and
 *   messages before its `firstKeptSeq` are not read;
 * - the read ledger: `ledger` records newest-first, completed by the newest `ledger_snapshot`. The journal
 *   writes a snapshot on open, after each compaction and every ~128 KB, so past the budget the scan only
 *   sniffs line types (no decoding) for at most about that much more.
 * Totals ("311 messages, ~250k tokens") come from the last message record's running `seq` and `tok`.
 */

/** Options of `loadForResume`. */
export interface ResumeOptions {
  /** Tokens the kept messages may use: the prompt budget minus the system prompt and tool specs. */
  budgetTokens: number;
  /** Corrected by the journal's newest usage record as a side effect, so later estimates benefit. */
  estimator?: TokenEstimator;
  blockSize?: number;
}

/** What resume kept, and what it cost. */
export interface ResumeResult {
  meta: SessionMeta;
  /** The conversation to continue: [summary or omission note], kept messages, repairs. */
  messages: Message[];
  ledger: ReadRecord[];
  /** Messages in the whole journal, from the last record's `seq` (null for a journal without it). */
  totalMessages: number | null;
  /** The last message record's running totals, for reopening the journal without reading it again. */
  tail: { seq: number; tok: number } | null;
  /** Journal messages kept (not counting a leading summary or note, nor repairs). */
  keptMessages: number;
  /** Corrected token estimate of `messages`. */
  tokensKept: number;
  /** Corrected estimate of every message in the journal (the cheap running total, rescaled). */
  tokensTotalEstimate: number | null;
  /** True when messages that are not covered by a summary were left out. */
  droppedMessages: boolean;
  /** True when records that repeat or break the message order were left out (a damaged journal). */
  damaged: boolean;
  /** True when a compaction summary leads `messages`. */
  summarised: boolean;
  /** Results added for calls left open by a crash; append them to the journal before the next request. */
  repairs: ToolResultMessage[];
  /** Bytes read from disk. */
  bytesRead: number;
  warnings: string[];
}

/** The text that introduces a compaction summary in the conversation. */
export const SUMMARY_PREFIX = "Summary of the earlier conversation: ";

/** The user message that carries a compaction summary. */
export function summaryMessage(summary: string, omittedAfter = 0): UserMessage {
  const gap =
    omittedAfter > 0
      ? `\n\n[${omittedAfter} later message${omittedAfter === 1 ? "" : "s"} between this summary and what follows were omitted to fit the context window.]`
      : "";
  return { type: "user", text: `${SUMMARY_PREFIX}${summary}${gap}` };
}

function omissionNote(omitted: number | null, damaged: boolean): UserMessage {
  const what =
    omitted === null
      ? "Earlier messages of this session"
      : `The first ${omitted} messages of this session`;
  const why = damaged
    ? "because the session's journal is damaged (two processes wrote it at once)"
    : "to fit the context window";
  return {
    type: "user",
    text: `[${what} are omitted here ${why}. Files may have changed since: read them again before editing.]`,
  };
}

// Tokens set aside for the leading note, so adding it never breaks the budget.
const NOTE_RESERVE = 64;

interface Kept {
  message: Message;
  seq: number;
  raw: number;
}

interface TailScan {
  collected: Kept[];
  lastSeq: number | null;
  lastTok: number | null;
  compaction: CompactionRecord | null;
  summaryRaw: number;
  overflowed: boolean;
  /** Message records that repeat or break the order were left out (see sequence-check.ts). */
  damaged: boolean;
  ledger: Map<string, ReadRecord>;
  /** Messages a rewind took out of the conversation: the journal keeps them, the count does not. */
  rewound: number;
  /** The seq of the first message after a `/clear`, when the scan reached one. */
  clearedBefore: number | null;
}

async function scanTail(
  handle: Awaited<ReturnType<typeof open>>,
  options: ResumeOptions & {
    size: number;
    stopAt: number;
    counter: ReadCounter;
    estimator: TokenEstimator;
    path: string;
  },
  warnings: string[],
): Promise<TailScan> {
  const { estimator } = options;
  const scan: TailScan = {
    collected: [],
    lastSeq: null,
    lastTok: null,
    compaction: null,
    summaryRaw: 0,
    overflowed: false,
    damaged: false,
    ledger: new Map(),
    rewound: 0,
    clearedBefore: null,
  };
  let oldestSeen: number | null = null;
  let usedRaw = 0;
  let messagesDone = false;
  let ledgerDone = false;
  let dropping = 0;
  let usageSeen = false;
  const sequence = new SequenceCheck();
  const lines = readLinesBackward(handle, {
    size: options.size,
    stopAt: options.stopAt,
    counter: options.counter,
    ...(options.blockSize ? { blockSize: options.blockSize } : {}),
  });
  for await (const line of lines) {
    const type = sniffType(line.bytes);
    const isLedger = type === "ledger" || type === "ledger_snapshot";
    if (messagesDone && type !== null && !isLedger) continue;
    const parsed = parseRecord(line.bytes.toString("utf8"));
    if (!parsed.ok) {
      warnings.push(describeBadLine(line.fromEnd, line.terminated, parsed.reason));
      continue;
    }
    const r = parsed.record;
    if (r.type === "ledger" && !ledgerDone) {
      if (!scan.ledger.has(r.record.path)) scan.ledger.set(r.record.path, r.record);
    } else if (r.type === "ledger_snapshot" && !ledgerDone) {
      for (const rec of r.records) if (!scan.ledger.has(rec.path)) scan.ledger.set(rec.path, rec);
      ledgerDone = true;
    } else if (messagesDone) {
      // past the budget only the ledger matters
    } else if (r.type === "usage" && !usageSeen && r.estimatedTokens) {
      estimator.correctWith({ inputTokens: r.inputTokens, estimatedTokens: r.estimatedTokens });
      usageSeen = true;
    } else if (r.type === "clear") {
      // The conversation restarted here: nothing older belongs to it.
      messagesDone = true;
      scan.clearedBefore = oldestSeen ?? (scan.lastSeq ?? 0) + 1;
    } else if (r.type === "rewind") {
      // The newest messages before it left the conversation; rewinds made later add theirs.
      dropping += r.drop;
    } else if (r.type === "compaction" && !scan.compaction) {
      scan.compaction = r;
      scan.summaryRaw = estimator.countMessage(summaryMessage(r.summary));
    } else if (r.type === "message") {
      if (scan.lastSeq === null) {
        scan.lastSeq = r.seq;
        scan.lastTok = r.tok;
        sequence.start(r.seq);
      } else if (!sequence.follows(r.seq)) {
        continue;
      }
      oldestSeen = r.seq;
      if (scan.compaction && r.seq < scan.compaction.firstKeptSeq) {
        messagesDone = true;
      } else if (dropping > 0) {
        dropping--;
        scan.rewound++;
      } else {
        const limit = Math.floor((options.budgetTokens - NOTE_RESERVE) / estimator.ratio);
        const remaining = limit - usedRaw - scan.summaryRaw;
        const raw = estimator.countMessage(r.message, Math.max(0, remaining));
        if (raw > remaining) {
          messagesDone = true;
          scan.overflowed = true;
        } else {
          scan.collected.push({ message: r.message, seq: r.seq, raw });
          usedRaw += raw;
        }
      }
    }
    if (messagesDone && ledgerDone) break;
  }
  scan.collected.reverse();
  const problem = sequence.describe(options.path, warnings.length > 0);
  if (problem) warnings.push(problem);
  scan.damaged = sequence.damaged;
  return scan;
}

/**
 * The messages of the conversation the journal holds: every message record, less those a rewind
 * took out and those before a `/clear` (the journal keeps both; the conversation has neither).
 */
function conversationLength(scan: TailScan, collected: number): number | null {
  if (scan.lastSeq === null) return collected === 0 ? 0 : null;
  const from = scan.clearedBefore ?? 1;
  return Math.max(0, scan.lastSeq - from + 1 - scan.rewound);
}

/** Loads the tail of a journal that fits `budgetTokens`; see the module comment. Never fails on a torn line. */
export async function loadForResume(path: string, options: ResumeOptions): Promise<ResumeResult> {
  const estimator = options.estimator ?? createTokenEstimator();
  const counter: ReadCounter = { bytesRead: 0 };
  const warnings: string[] = [];
  const handle = await open(path, "r");
  let meta: SessionMeta;
  let scan: TailScan;
  try {
    const { size } = await handle.stat();
    const header = await readFirstLine(handle, { size, counter });
    meta = parseHeader(header.bytes, path);
    scan = await scanTail(
      handle,
      { ...options, size, stopAt: header.end, counter, estimator, path },
      warnings,
    );
  } finally {
    await handle.close();
  }

  const limitRaw = Math.floor((options.budgetTokens - NOTE_RESERVE) / estimator.ratio);
  let compaction = scan.compaction;
  if (compaction && scan.summaryRaw * 2 > limitRaw) {
    warnings.push(
      `The compaction summary (~${formatTokens(scan.summaryRaw)} tokens) is too large for this window; resuming without it.`,
    );
    compaction = null;
  }
  const window = scan.collected;
  const messages = window.map((k) => k.message);
  const budgetRaw = limitRaw - (compaction ? scan.summaryRaw : 0);
  // Preferring a user message only makes sense when something is cut anyway.
  const start = chooseStart(
    messages,
    window.map((k) => k.raw),
    budgetRaw,
    { safe: safeStarts(messages), preferUser: scan.overflowed || compaction !== scan.compaction },
  );
  const kept = messages.slice(start);
  const firstKeptSeq = window[start]?.seq ?? (scan.lastSeq ?? 0) + 1;
  const droppedMessages = start > 0 || scan.overflowed || (scan.compaction !== null && !compaction);
  const repairs = closeOpenCalls(kept);
  if (repairs.length > 0) {
    warnings.push(
      `${repairs.length} tool call(s) at the end of the journal had no result (nex stopped while they ran); they are marked as unknown.`,
    );
  }
  if (kept.length === 0 && droppedMessages && !scan.damaged) {
    warnings.push(
      "The newest exchange alone does not fit the context window; the conversation resumes without it.",
    );
  }

  const out: Message[] = [];
  if (compaction)
    out.push(summaryMessage(compaction.summary, firstKeptSeq - compaction.firstKeptSeq));
  else if (droppedMessages && kept[0]?.type !== "user") {
    out.push(
      omissionNote(
        scan.lastSeq === null ? null : firstKeptSeq - 1,
        scan.damaged && !scan.overflowed,
      ),
    );
  }
  out.push(...kept, ...repairs);

  return {
    meta,
    messages: out,
    ledger: [...scan.ledger.values()],
    totalMessages: conversationLength(scan, window.length),
    tail:
      scan.lastSeq !== null && scan.lastTok !== null
        ? { seq: scan.lastSeq, tok: scan.lastTok }
        : null,
    keptMessages: kept.length,
    tokensKept: estimator.estimateMessages(out),
    tokensTotalEstimate: totalEstimate(scan, kept, estimator),
    droppedMessages,
    damaged: scan.damaged,
    summarised: compaction !== null,
    repairs,
    bytesRead: counter.bytesRead,
    warnings,
  };
}

// The journal's running total is a cheap estimate; rescale it by how the tokenizer and the cheap
// estimate compare on the kept messages, then apply the usage correction.
function totalEstimate(scan: TailScan, kept: Message[], estimator: TokenEstimator): number | null {
  if (scan.lastTok === null) return scan.lastSeq === null && kept.length === 0 ? 0 : null;
  let cheapKept = 0;
  let rawKept = 0;
  for (const m of kept) {
    cheapKept += cheapTokens(m);
    rawKept += estimator.countMessage(m);
  }
  const scale = cheapKept > 0 ? Math.min(2, Math.max(0.5, rawKept / cheapKept)) : 1;
  const raw = rawKept + Math.max(0, scan.lastTok - cheapKept) * scale;
  return Math.ceil(raw * estimator.ratio);
}

/** The facts `describeFit` needs; a `ResumeResult` has them. */
export interface FitFacts {
  totalMessages: number | null;
  tokensTotalEstimate: number | null;
  keptMessages: number;
  tokensKept: number;
  droppedMessages: boolean;
  summarised: boolean;
  /** The journal is damaged: what was left out was not left out for the window's sake alone. */
  damaged?: boolean;
}

/**
 * The line for the user, e.g.
 * `Journal had 311 messages (~250k tokens); kept the last 47 (~28k tokens) to fit qwen3-coder (32768).`
 */
export function describeFit(fit: FitFacts, target: { model: string; window: number }): string {
  const to = `to fit ${target.model} (${target.window}).`;
  const totalTokens =
    fit.tokensTotalEstimate === null ? "" : ` (~${formatTokens(fit.tokensTotalEstimate)} tokens)`;
  if (!fit.droppedMessages && !fit.summarised) {
    const n = fit.totalMessages ?? fit.keptMessages;
    return `Journal has ${n} message${n === 1 ? "" : "s"}${totalTokens}; all fit ${target.model} (${target.window}).`;
  }
  const had =
    fit.totalMessages === null
      ? `Journal had more than ${fit.keptMessages} messages`
      : `Journal had ${fit.totalMessages} messages${totalTokens}`;
  const what = fit.summarised ? "a summary and the last" : "the last";
  const why = fit.damaged ? "of a damaged journal (see the warning above)." : to;
  return `${had}; kept ${what} ${fit.keptMessages} (~${formatTokens(fit.tokensKept)} tokens) ${why}`;
}

/** 850, 3.1k, 28k, 250k, 1.2M. */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  if (n < 999_500) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

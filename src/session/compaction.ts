import type { Message } from "../protocol/index.ts";
import { contextBudget } from "./budget.ts";
import { renderMessage } from "./message-text.ts";
import type { CompactionInfo } from "./records.ts";
import { formatTokens, SUMMARY_PREFIX, summaryMessage } from "./replay.ts";
import { createTokenEstimator, type TokenEstimator } from "./tokens.ts";
import { chooseStart, safeStarts } from "./tool-pairs.ts";

/**
 * Compaction without a model: the session layer plans and builds requests, the runtime sends them.
 *   const plan = planCompaction(messages, { window, estimator });
 *   const done = await runCompaction(plan, { window, estimator, journalSeq: journal.seq,
 *     summarise: (req) => callModelWithoutTools(req) });
 *   journal.appendCompaction(done.record); messages = done.messages;
 * `runCompaction` only sequences `buildCompactionRequests`, `buildMergeRequests` and `applyCompaction`;
 * a runtime may call those itself. Every request fits the window: the prefix is rendered as a transcript
 * (tool arguments described, never quoted: see message-text.ts) and cut into chunks, whose summaries are then
 * merged, in as many rounds as the window requires.
 */

/** Which messages a compaction summarises and which it keeps. */
export interface CompactionPlan {
  prefix: Message[];
  suffix: Message[];
  /** Corrected token estimates. */
  prefixTokens: number;
  suffixTokens: number;
}

/** One summarisation request: send it with no tools and `maxTokens` as the output limit. */
export interface SummaryRequest {
  kind: "chunk" | "merge";
  system: string;
  messages: Message[];
  maxTokens: number;
}

/** Sizes shared by the request builders. */
export interface SummaryOptions {
  window: number;
  estimator?: TokenEstimator;
}

/** A compacted conversation, the record to journal, and the line to show. */
export interface CompactionResult {
  messages: Message[];
  record: CompactionInfo;
  line: string;
}

/**
 * Splits `messages` into a prefix to summarise and a suffix of about `keepRecentTokens` (default 30% of
 * the prompt budget) to keep, never separating a tool call from its result and preferring to keep from a
 * user message. If everything already fits `keepRecentTokens`, about half is summarised (the caller asked
 * because the endpoint disagreed with the estimate). Null when there is nothing to summarise.
 */
export function planCompaction(
  messages: readonly Message[],
  options: SummaryOptions & { keepRecentTokens?: number },
): CompactionPlan | null {
  const estimator = options.estimator ?? createTokenEstimator();
  const counts = messages.map((m) => estimator.estimateMessage(m));
  const total = counts.reduce((a, b) => a + b, 0);
  const keep =
    options.keepRecentTokens ??
    Math.floor(contextBudget({ window: options.window }).promptBudget * 0.3);
  const safe = safeStarts(messages);
  let start = chooseStart(messages, counts, keep, { safe });
  if (start === 0) start = chooseStart(messages, counts, Math.floor(total / 2), { safe });
  if (start >= messages.length) start = safe.lastIndexOf(true);
  if (start <= 0) return null;
  const prefix = messages.slice(0, start);
  const first = prefix[0];
  if (prefix.length === 1 && first?.type === "user" && first.text.startsWith(SUMMARY_PREFIX))
    return null;
  const suffix = messages.slice(start);
  const prefixTokens = counts.slice(0, start).reduce((a, b) => a + b, 0);
  return { prefix, suffix, prefixTokens, suffixTokens: total - prefixTokens };
}

const SYSTEM = [
  "You summarise part of a coding session between a user and an assistant that uses tools, so that the",
  "assistant can continue the work from your summary alone. Write plain prose and short lists. Keep: what",
  "the user asked for and every constraint or preference they stated; decisions and their reasons; files",
  "created, changed or deleted and what each change did (names and purposes, not content); commands run and",
  "their outcomes; errors met and how they were resolved; what remains to do and the next step. Do not copy",
  "file contents, code or tool arguments: the files on disk are the truth and must be read again before they",
  'are edited. Never write placeholders such as "rest unchanged".',
].join(" ");

interface Sizing {
  estimator: TokenEstimator;
  window: number;
  maxTokens: number;
  /** Tokens the transcript (or the summaries) of one request may use. */
  inputBudget: number;
  safetyMargin: number;
  words: number;
  /** Corrected token count of a text, memoised for one build. */
  count(text: string): number;
}

function sizing(options: SummaryOptions): Sizing {
  const estimator = options.estimator ?? createTokenEstimator();
  const { window } = options;
  const { safetyMargin } = contextBudget({ window });
  const frame = estimator.estimateRequest({
    system: SYSTEM,
    messages: [{ type: "user", text: chunkText(999, 999, "", 9999) }],
  });
  const avail = window - safetyMargin - frame;
  const maxTokens = Math.min(
    Math.max(256, Math.min(4096, Math.floor(window * 0.15))),
    Math.floor(avail / 3.5),
  );
  const memo = new Map<string, number>();
  if (maxTokens < 128) {
    throw new Error(
      `A context window of ${window} tokens is too small to summarise into; configure a larger window for this model.`,
    );
  }
  return {
    estimator,
    window,
    maxTokens,
    inputBudget: avail - maxTokens,
    safetyMargin,
    words: Math.floor(maxTokens * 0.6),
    count: (text) => {
      const hit = memo.get(text);
      if (hit !== undefined) return hit;
      const n = estimator.estimateText(text);
      memo.set(text, n);
      return n;
    },
  };
}

function chunkText(part: number, parts: number, transcript: string, words: number): string {
  return (
    `Part ${part} of ${parts} of the conversation, oldest first. Tool arguments and long tool outputs are ` +
    `shown only by their size.\n\n<transcript>\n${transcript}\n</transcript>\n\n` +
    `Write the summary of this part in at most about ${words} words.`
  );
}

function mergeText(summaries: readonly string[], words: number): string {
  const parts = summaries.map((s, i) => `[Part ${i + 1}]\n${s}`).join("\n\n");
  return (
    `Summaries of consecutive parts of one conversation, oldest first:\n\n${parts}\n\n` +
    `Merge them into one summary of the whole conversation in at most about ${words} words; ` +
    "where a later part supersedes an earlier one, keep the later."
  );
}

function fits(s: Sizing, request: SummaryRequest): boolean {
  const prompt = s.estimator.estimateRequest({
    system: request.system,
    messages: request.messages,
  });
  return prompt + request.maxTokens + s.safetyMargin <= s.window;
}

// Cuts a block too large for one request into pieces, at line ends where possible. Only pieces of about
// the budget's size are tokenized, so a huge block costs one pass, not one pass per piece.
function splitBlock(s: Sizing, block: string, budget: number): string[] {
  const charsPerToken = block.length / Math.max(1, s.count(block));
  const pieces: string[] = [];
  let rest = block;
  while (rest.length > 0) {
    let take = Math.max(1, Math.floor(budget * charsPerToken * 0.9));
    if (rest.length <= take && s.count(rest) <= budget) {
      pieces.push(rest);
      break;
    }
    for (;;) {
      const nl = rest.lastIndexOf("\n", take);
      const cut = nl > take / 2 ? nl + 1 : Math.min(take, rest.length);
      const candidate = rest.slice(0, cut);
      if (s.count(candidate) <= budget || take <= 1) {
        pieces.push(candidate);
        rest = rest.length > cut ? `[continued]\n${rest.slice(cut)}` : "";
        break;
      }
      take = Math.floor(take / 2);
    }
  }
  return pieces;
}

function pack(s: Sizing, blocks: readonly string[], budget: number): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let used = 0;
  for (const block of blocks) {
    const tokens = s.count(block) + 2;
    if (tokens > budget) {
      if (current.length > 0) groups.push(current);
      current = [];
      used = 0;
      for (const piece of splitBlock(s, block, budget - 2)) groups.push([piece]);
      continue;
    }
    if (used + tokens > budget && current.length > 0) {
      groups.push(current);
      current = [];
      used = 0;
    }
    current.push(block);
    used += tokens;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

// Builds one request per group; a group whose request does not fit (estimates of parts do not add up
// exactly) is packed again with a smaller budget.
function requestsFor(
  s: Sizing,
  blocks: readonly string[],
  build: (group: string[], index: number, count: number) => SummaryRequest,
): SummaryRequest[] {
  for (let budget = s.inputBudget; budget > 16; budget = Math.floor(budget * 0.85)) {
    const groups = pack(s, blocks, budget);
    const requests = groups.map((g, i) => build(g, i + 1, groups.length));
    if (requests.every((r) => fits(s, r))) return requests;
  }
  throw new Error("The conversation could not be cut into summary requests that fit the window.");
}

/** Summarisation requests for `prefix`, each fitting the window; their summaries go to `buildMergeRequests`. */
export function buildCompactionRequests(
  prefix: readonly Message[],
  options: SummaryOptions,
): SummaryRequest[] {
  const s = sizing(options);
  const blocks = prefix.map(renderMessage);
  return requestsFor(s, blocks, (group, part, parts) => ({
    kind: "chunk",
    system: SYSTEM,
    messages: [{ type: "user", text: chunkText(part, parts, group.join("\n\n"), s.words) }],
    maxTokens: s.maxTokens,
  }));
}

/** Requests that merge consecutive summaries, each fitting the window; empty when one summary is left. */
export function buildMergeRequests(
  summaries: readonly string[],
  options: SummaryOptions,
): SummaryRequest[] {
  if (summaries.length <= 1) return [];
  const s = sizing(options);
  return requestsFor(s, summaries, (group) => ({
    kind: "merge",
    system: SYSTEM,
    messages: [{ type: "user", text: mergeText(group, s.words) }],
    maxTokens: s.maxTokens,
  }));
}

/**
 * The conversation after a compaction: the summary as a leading user message, then the kept suffix; and
 * the record to journal. `journalSeq` is the journal's `seq` now: the suffix must be its last messages.
 */
export function applyCompaction(
  summary: string,
  plan: CompactionPlan,
  options: { journalSeq: number; estimator?: TokenEstimator },
): CompactionResult {
  const text = summary.trim();
  if (text.length === 0) {
    throw new Error("The model returned an empty summary; the conversation was not compacted.");
  }
  const estimator = options.estimator ?? createTokenEstimator();
  const lead = summaryMessage(text);
  const summaryTokens = estimator.estimateMessage(lead);
  const record: CompactionInfo = {
    summary: text,
    replacedMessages: plan.prefix.length,
    firstKeptSeq: options.journalSeq - plan.suffix.length + 1,
    tokensBefore: plan.prefixTokens + plan.suffixTokens,
    tokensAfter: summaryTokens + plan.suffixTokens,
  };
  const line =
    `Compacted ${plan.prefix.length} earlier messages (~${formatTokens(plan.prefixTokens)} tokens) into a ` +
    `summary (~${formatTokens(summaryTokens)} tokens); kept the last ${plan.suffix.length} ` +
    `(~${formatTokens(plan.suffixTokens)} tokens).`;
  return { messages: [lead, ...plan.suffix], record, line };
}

/**
 * Runs a plan through `summarise` (the runtime's call to the model, without tools), one request at a
 * time so the endpoint is never flooded, merging chunk summaries until one is left.
 */
export async function runCompaction(
  plan: CompactionPlan,
  options: SummaryOptions & {
    journalSeq: number;
    summarise: (request: SummaryRequest) => Promise<string>;
  },
): Promise<CompactionResult> {
  const estimator = options.estimator ?? createTokenEstimator();
  const sized = { window: options.window, estimator };
  let summaries: string[] = [];
  for (const request of buildCompactionRequests(plan.prefix, sized)) {
    summaries.push(await options.summarise(request));
  }
  while (summaries.length > 1) {
    const requests = buildMergeRequests(summaries, sized);
    if (requests.length >= summaries.length) {
      throw new Error(
        "The partial summaries are too long to merge within the window; the conversation was not compacted.",
      );
    }
    const next: string[] = [];
    for (const request of requests) next.push(await options.summarise(request));
    summaries = next;
  }
  return applyCompaction(summaries[0] ?? "", plan, { journalSeq: options.journalSeq, estimator });
}

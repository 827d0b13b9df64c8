// deep_research: a question split by the model into a few sub-questions, each researched (search,
// the best pages read and summarised), then one synthesis that cites the sources by number. Bounded:
// at most four sub-questions, two pages each, asked one after another (no burst of requests), within
// a time budget whose last quarter is kept for the synthesis; what the time left out is said.
import { redactUrl } from "./redact-url.ts";
import { clip, gatherNotes, type ResearchParts, type ResearchSource } from "./research.ts";
import { canonical } from "./web-search.ts";

/** Most sub-questions, and pages read for each. */
export const MAX_SUB_QUESTIONS = 4;
const PAGES_EACH = 2;

/** One request to the session's model with no tools; the runtime brings the model. */
export type AskModel = (system: string, prompt: string, signal: AbortSignal) => Promise<string>;

export interface DeepResearchParts extends Omit<ResearchParts, "pages"> {
  ask: AskModel;
  /** The whole run's time; gathering stops at three quarters of it. */
  timeoutMs: number;
}

const SPLIT_SYSTEM =
  "You plan web research. Split the question into 2 to 4 self-contained sub-questions that together answer it, each a web search would answer. Answer with the sub-questions only, one per line, no numbering.";
const SYNTHESIS_SYSTEM =
  "You write a research answer from numbered notes. Answer the question directly, cite every claim with the note numbers in brackets like [2], say where the notes disagree or fall short, and add nothing the notes do not say.";

/** The answer with its sources, or throws when no sub-question could be searched at all. */
export async function deepResearch(
  question: string,
  parts: DeepResearchParts,
  signal: AbortSignal,
): Promise<string> {
  const total = AbortSignal.any([signal, AbortSignal.timeout(parts.timeoutMs)]);
  const gathering = AbortSignal.any([signal, AbortSignal.timeout(parts.timeoutMs * 0.75)]);
  parts.progress("splitting the question");
  const subQuestions = await split(question, parts, gathering);
  const sources: ResearchSource[] = [];
  const problems: string[] = [];
  const perQuestion = Math.max(1_200, Math.floor(parts.budgetBytes / subQuestions.length));
  let searched = 0;
  for (const [i, sub] of subQuestions.entries()) {
    if (gathering.aborted) {
      problems.push(`"${sub}": not researched (${whyStopped(signal)})`);
      continue;
    }
    parts.progress(`sub-question ${i + 1} of ${subQuestions.length}: ${sub}`);
    try {
      const notes = await gatherNotes(
        sub,
        { ...parts, pages: PAGES_EACH, budgetBytes: perQuestion },
        gathering,
      );
      searched++;
      for (const source of notes.sources) {
        if (sources.some((known) => canonical(known.url) === canonical(source.url))) continue;
        sources.push({ ...source, note: `(${sub}) ${source.note}` });
      }
      problems.push(...notes.skipped.map((line) => `not read: ${line}`));
      if (notes.failedBackends.length > 0)
        problems.push(`search backends that failed: ${notes.failedBackends.join("; ")}`);
    } catch (error) {
      signal.throwIfAborted();
      const message = (error as Error).message;
      problems.push(`"${sub}": ${gathering.aborted ? whyStopped(signal) : message}`);
      // No backend answers: every other sub-question would fail the same way.
      if ((error as Error).name === "SearchUnavailable" && searched === 0 && i === 0) throw error;
    }
  }
  signal.throwIfAborted();
  const lines = [`Deep research: ${question}`, ""];
  if (sources.length === 0) {
    lines.push("No page could be read for any sub-question, so there is no answer.");
  } else {
    parts.progress(`writing the answer from ${sources.length} sources`);
    const notes = sources.map((source, i) => `[${i + 1}] ${source.note}`).join("\n\n");
    let answer: string;
    try {
      answer = await parts.ask(
        SYNTHESIS_SYSTEM,
        `Question: ${question}\n\nNotes:\n${notes}\n\nAnswer the question from these notes.`,
        total,
      );
    } catch (error) {
      signal.throwIfAborted();
      answer = `(The synthesis failed: ${(error as Error).message}. The notes, as gathered:)\n\n${notes}`;
    }
    lines.push(answer.trim(), "", "Sources:");
    for (const [i, source] of sources.entries())
      lines.push(`[${i + 1}] ${source.title} — ${redactUrl(source.url)}`);
  }
  lines.push("", "Sub-questions researched:", ...subQuestions.map((sub) => `- ${sub}`));
  if (problems.length > 0) lines.push("", "Gaps:", ...problems.map((line) => `- ${line}`));
  return clip(lines.join("\n"), parts.budgetBytes);
}

async function split(
  question: string,
  parts: DeepResearchParts,
  signal: AbortSignal,
): Promise<string[]> {
  let answer = "";
  try {
    answer = await parts.ask(SPLIT_SYSTEM, `Question: ${question}`, signal);
  } catch (error) {
    signal.throwIfAborted();
    parts.progress(
      `the question could not be split (${(error as Error).message}); researching it whole`,
    );
  }
  const subs = answer
    .split("\n")
    .map((line) =>
      line
        .replace(/^\s*(?:[-*•]|\d+[.)]|Q\d+[:.])\s*/i, "")
        .trim()
        .slice(0, 300),
    )
    .filter((line) => line.length > 3);
  const unique = [...new Set(subs)].slice(0, MAX_SUB_QUESTIONS);
  return unique.length > 0 ? unique : [question];
}

function whyStopped(signal: AbortSignal): string {
  return signal.aborted ? "interrupted" : "the time budget ran out";
}

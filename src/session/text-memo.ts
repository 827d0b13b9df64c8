// What a pure function of a string gave, remembered for the strings that come again: a session's
// redaction sees the same texts over and over (an event, its journal record, the next request's copy
// of the conversation). Bounded in entries and in characters, oldest forgotten first.

/** A remembered answer per text; `limits` bound the entries, one text's length and the total. */
export function textMemo<T>(
  compute: (text: string) => T,
  limits: { entries: number; textChars: number; totalChars: number } = DEFAULT_LIMITS,
): (text: string) => T {
  // Two generations, each within half the bounds: when the newer fills, the older is dropped whole
  // and the newer takes its place. Forgetting one entry at a time cost a delete and an iterator for
  // every text once the memo was full (most of a long session); a text found in the older
  // generation is kept in the newer, so what comes again stays.
  const entries = Math.max(1, Math.floor(limits.entries / 2));
  const totalChars = limits.totalChars / 2;
  let recent = new Map<string, T>();
  let recentChars = 0;
  let older = new Map<string, T>();
  return (text) => {
    const remembered = recent.get(text);
    if (remembered !== undefined) return remembered;
    const answer = older.get(text) ?? compute(text);
    if (text.length > limits.textChars) return answer;
    if (recent.size >= entries || recentChars + text.length > totalChars) {
      older = recent;
      recent = new Map();
      recentChars = 0;
    }
    recent.set(text, answer);
    recentChars += text.length;
    return answer;
  };
}

const DEFAULT_LIMITS = { entries: 1024, textChars: 64 * 1024, totalChars: 1024 * 1024 };

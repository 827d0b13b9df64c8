// What a pure function of a string gave, remembered for the strings that come again: a session's
// redaction sees the same texts over and over (an event, its journal record, the next request's copy
// of the conversation). Bounded in entries and in characters, oldest forgotten first.

/** A remembered answer per text; `limits` bound the entries, one text's length and the total. */
export function textMemo<T>(
  compute: (text: string) => T,
  limits: { entries: number; textChars: number; totalChars: number } = DEFAULT_LIMITS,
): (text: string) => T {
  const known = new Map<string, T>();
  let chars = 0;
  return (text) => {
    const remembered = known.get(text);
    if (remembered !== undefined) return remembered;
    const answer = compute(text);
    if (text.length > limits.textChars) return answer;
    while (known.size >= limits.entries || chars + text.length > limits.totalChars) {
      const oldest = known.keys().next().value as string;
      known.delete(oldest);
      chars -= oldest.length;
    }
    known.set(text, answer);
    chars += text.length;
    return answer;
  };
}

const DEFAULT_LIMITS = { entries: 1024, textChars: 64 * 1024, totalChars: 1024 * 1024 };

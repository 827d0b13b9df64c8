// Lazy models replace code they did not want to repeat with a comment such as
// `// ... existing code ...`; writing that to disk deletes the code it stands for.
// A line counts as such a placeholder only when the whole line is a comment AND its words
// are the omission idiom, so `...args`, a bare `// ...` and ordinary comments pass.

const OPENER = /^\s*(?:\{\s*\/\*+|\/\/+|\/\*+|<!--|#+|--|;+|%+|\*+)\s*(.*?)\s*$/;
const CLOSER = /\s*(?:\*+\/\s*\}?|-->)\s*$/;
const ELLIPSIS = /^(?:\.{3,}|…|\[\s*(?:\.{3}|…)\s*\])/;
const TRAILING_ELLIPSIS = /(?:\.{3,}|…|\[\s*(?:\.{3}|…)\s*\])$/;
const LEAD_WORDS = new Set([
  "rest",
  "remainder",
  "remaining",
  "existing",
  "previous",
  "original",
  "other",
  "unchanged",
  "keep",
  "same",
  "omitted",
  "all",
]);
const KEYWORD =
  /\b(?:rest|remainder|remaining|existing|previous|original|other|unchanged|omitted|same|keep)\b/;
const NOUN =
  /\b(?:code|content|contents|file|implementation|implementations|methods?|functions?|logic|imports|properties|fields|styles|tests|body|components?|classes|definitions|handlers|routes|markup|html|css|lines)\b/;
const QUALIFIER =
  /\b(?:unchanged|remains?|stays?|as (?:before|is)|omitted|elided|not shown|goes here|here|the same|same as|for brevity)\b/;
const ONLY_REST_OF =
  /^(?:the )?(?:rest|remainder) of (?:the |this )?(?:\w+ )?(?:code|file|function|class|module|implementation|content|contents|methods|component|body|script|document|page|styles|logic|tests)$/;

function commentText(line: string): string | null {
  const opened = OPENER.exec(line);
  if (!opened) return null;
  return (opened[1] ?? "").replace(CLOSER, "").trim();
}

/** True when a line is an omission placeholder such as `// ... rest of the code unchanged`. */
export function isPlaceholderLine(line: string): boolean {
  const raw = commentText(line);
  if (raw === null || raw.length === 0) return false;
  const text = raw.toLowerCase();
  const leading = ELLIPSIS.test(text);
  const trailing = TRAILING_ELLIPSIS.test(text);
  const words = text
    .replace(/\.{3,}|…/g, " ")
    .replace(/[[\](){}:,.!-]/g, " ")
    .split(/\s+/)
    .filter((word) => word.length > 0);
  if (words.length === 0 || words.length > 10) return false;
  const first = words[0] === "the" ? words[1] : words[0];
  const idiomatic = leading || (first !== undefined && LEAD_WORDS.has(first));
  const joined = words.join(" ");
  if (ONLY_REST_OF.test(joined)) return true;
  if (!idiomatic || !KEYWORD.test(joined)) return false;
  if (!NOUN.test(joined) && !QUALIFIER.test(joined)) return false;
  if (first === "keep" && NOUN.test(joined)) return true;
  return leading || trailing || QUALIFIER.test(joined);
}

/**
 * The placeholder lines of `content` that are not already in `existing` (a file may legitimately
 * contain such a comment; rewriting it unchanged is not an omission).
 */
export function findPlaceholders(content: string, existing = ""): string[] {
  const known = new Set(existing.split("\n").map((line) => line.trim()));
  const found: string[] = [];
  for (const line of content.split("\n")) {
    const trimmed = line.trim();
    if (isPlaceholderLine(line) && !known.has(trimmed) && !found.includes(trimmed))
      found.push(trimmed);
  }
  return found;
}

/** The message for refused placeholder content. */
export function placeholderMessage(display: string, lines: string[]): string {
  const shown = lines
    .slice(0, 3)
    .map((line) => `"${line.slice(0, 80)}"`)
    .join(", ");
  return (
    `Refused: the content for ${display} contains an omission placeholder (${shown}). ` +
    "Writing it would delete the code it stands for. Nothing was written. Send the complete text; " +
    "for a small change use edit_file, and for a large file write it in parts (part/parts)."
  );
}

// Describes where a piece of JSON text stands (what is still open, which key is being written)
// without ever completing it: the description feeds error messages, never an executor.

/** Where a scan of JSON text ended. */
export interface JsonScan {
  /** Objects and arrays opened and not closed. */
  openContainers: number;
  /** The text ends inside a string. */
  inString: boolean;
  /** The innermost object key whose value was being written when the text ended, if any. */
  openKey: string | null;
  /** A closing bracket did not match, or a brace closed at depth 0: the text is not a cut-off prefix. */
  malformed: boolean;
}

interface Frame {
  type: "object" | "array";
  /** For objects: the key whose value is being written, null while expecting a key. */
  key: string | null;
  /** For objects: the scanner is in key position (before the key's colon). */
  expectingKey: boolean;
}

/** Scans `text` in one pass, tracking containers, strings and the key being written. */
export function scanJson(text: string): JsonScan {
  const stack: Frame[] = [];
  let inString = false;
  let stringIsKey = false;
  let stringStart = 0;
  let malformed = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) {
        i++;
        continue;
      }
      if (ch !== 34 /* " */) continue;
      inString = false;
      const top = stack[stack.length - 1];
      if (stringIsKey && top) top.key = decodeKey(text.slice(stringStart, i + 1));
      continue;
    }
    const top = stack[stack.length - 1];
    switch (ch) {
      case 34 /* " */:
        inString = true;
        stringIsKey = top?.type === "object" && top.expectingKey;
        stringStart = i;
        break;
      case 123 /* { */:
        stack.push({ type: "object", key: null, expectingKey: true });
        break;
      case 91 /* [ */:
        stack.push({ type: "array", key: null, expectingKey: false });
        break;
      case 125 /* } */:
      case 93 /* ] */:
        {
          const expected = ch === 125 ? "object" : "array";
          if (!top || top.type !== expected) malformed = true;
          else stack.pop();
          break;
        }
      case 58 /* : */:
        if (top?.type === "object") top.expectingKey = false;
        break;
      case 44 /* , */:
        if (top?.type === "object") {
          top.expectingKey = true;
          top.key = null;
        }
        break;
    }
  }
  return { openContainers: stack.length, inString, openKey: innermostKey(stack), malformed };
}

function innermostKey(stack: Frame[]): string | null {
  for (let i = stack.length - 1; i >= 0; i--) {
    const key = stack[i]?.key;
    if (key !== null && key !== undefined) return key;
  }
  return null;
}

function decodeKey(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted.slice(1, -1);
  }
}

/**
 * Finds the end of the balanced object or array that starts at `start`, honouring strings.
 * Returns the index just past its closing bracket, or -1 when the text ends first or brackets mismatch.
 */
export function balancedEnd(text: string, start: number): number {
  const closers: number[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++;
      else if (ch === 34) inString = false;
      continue;
    }
    if (ch === 34) inString = true;
    else if (ch === 123) closers.push(125);
    else if (ch === 91) closers.push(93);
    else if (ch === 125 || ch === 93) {
      if (closers.pop() !== ch) return -1;
      if (closers.length === 0) return i + 1;
    }
  }
  return -1;
}

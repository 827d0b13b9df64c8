// JSON.parse, exact also for object keys written with escapes. V8 (Node 24 and 26 at least; see
// nodejs/node#63785) can decode an escaped key ("\n", "\"", "\u00e9") as the key "\\" once an earlier
// text in the process had a "\\" key: a tool call's argument would reach the tool under another name.
// String values are not affected. A text with no escaped key (nearly all) goes to JSON.parse as it
// is; in the others each escaped key is swapped for a plain stand-in, the text parsed, and every key
// put back in its place, decoded as a string value.

/** The value of a JSON text, as JSON.parse would give it without the engine's bug; throws as it does. */
export function parseJson(text: string): unknown {
  if (!text.includes("\\")) return JSON.parse(text);
  const tag = standIn(text);
  const keys: string[] = [];
  let swapped = "";
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 0x22) continue;
    const end = stringEnd(text, i);
    if (end < 0) return JSON.parse(text);
    if (text.slice(i, end).includes("\\") && isKey(text, end)) {
      const key = decodeKey(text.slice(i, end));
      if (key === null) return JSON.parse(text);
      swapped += `${text.slice(copied, i)}"${tag}${keys.length}"`;
      keys.push(key);
      copied = end;
    }
    i = end - 1;
  }
  if (keys.length === 0) return JSON.parse(text);
  let value: unknown;
  try {
    value = JSON.parse(swapped + text.slice(copied));
  } catch {
    // The error names a place in the text the caller gave, not in the swapped one.
    return JSON.parse(text);
  }
  return restore(value, tag, keys);
}

/** A prefix found nowhere in `text`, made of characters a JSON string holds unescaped. */
function standIn(text: string): string {
  let n = 0;
  while (text.includes(`~key${n}~`)) n++;
  return `~key${n}~`;
}

/** The index just past the string that opens at `start`, or -1 if it never closes. */
function stringEnd(text: string, start: number): number {
  // indexOf, not a loop over every character: an argument may hold a whole file.
  for (let from = start + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** True when the string that ended at `end` is an object's key: a colon follows it. */
function isKey(text: string, end: number): boolean {
  let i = end;
  while (i < text.length && " \t\n\r".includes(text.charAt(i))) i++;
  return text.charAt(i) === ":";
}

/** A quoted key decoded as a string value (which the bug does not reach), or null if invalid. */
function decodeKey(quoted: string): string | null {
  try {
    const [key] = JSON.parse(`[${quoted}]`) as [string];
    return key;
  } catch {
    return null;
  }
}

function restore(value: unknown, tag: string, keys: readonly string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => restore(item, tag, keys));
  if (typeof value !== "object" || value === null) return value;
  const object: Record<string, unknown> = {};
  for (const [name, inner] of Object.entries(value)) {
    const key = name.startsWith(tag) ? (keys[Number(name.slice(tag.length))] ?? name) : name;
    // Defined, not assigned: a key "__proto__" stays an own property, as JSON.parse makes it.
    Object.defineProperty(object, key, {
      value: restore(inner, tag, keys),
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
  return object;
}

// File names are bytes, not text: a name that is not valid UTF-8 (byte 0xff) must come back from undo
// byte for byte. Paths from git (`-z` output) are kept as keys: the UTF-8 text when the bytes are
// valid UTF-8 (the common case, readable in the checkpoint log), else a NUL-prefixed hex spelling,
// which no real name can collide with since names never hold NUL.

const HEX_PREFIX = "\0x";

/** The key of a path given as raw bytes. */
export function keyOfBytes(bytes: Buffer): string {
  const text = bytes.toString("utf8");
  return Buffer.from(text, "utf8").equals(bytes) ? text : `${HEX_PREFIX}${bytes.toString("hex")}`;
}

/** The raw bytes a key stands for. */
export function bytesOfKey(key: string): Buffer {
  return key.startsWith(HEX_PREFIX)
    ? Buffer.from(key.slice(HEX_PREFIX.length), "hex")
    : Buffer.from(key, "utf8");
}

/** A key as a user reads it: bytes that are not UTF-8 are shown as `\xNN`. */
export function displayKey(key: string): string {
  if (!key.startsWith(HEX_PREFIX)) return key;
  const bytes = bytesOfKey(key);
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    // Take the longest run that decodes cleanly, escape one byte otherwise.
    let end = i;
    while (end < bytes.length && (bytes[end] ?? 0) < 0x80) end += 1;
    if (end > i) {
      out += bytes.subarray(i, end).toString("latin1");
      i = end;
      continue;
    }
    let decoded = false;
    for (let len = 4; len >= 2; len -= 1) {
      const piece = bytes.subarray(i, i + len);
      if (piece.length === len && keyOfBytes(piece) === piece.toString("utf8")) {
        out += piece.toString("utf8");
        i += len;
        decoded = true;
        break;
      }
    }
    if (!decoded) {
      out += `\\x${(bytes[i] ?? 0).toString(16).padStart(2, "0")}`;
      i += 1;
    }
  }
  return out;
}

/** Splits NUL-separated git output into path keys. */
export function splitNul(out: Buffer): string[] {
  const keys: string[] = [];
  let start = 0;
  for (let i = 0; i < out.length; i += 1) {
    if (out[i] !== 0) continue;
    if (i > start) keys.push(keyOfBytes(out.subarray(start, i)));
    start = i + 1;
  }
  if (start < out.length) keys.push(keyOfBytes(out.subarray(start)));
  return keys;
}

/** The parent key of a key (`.` at the top). */
export function parentKey(key: string): string {
  const bytes = bytesOfKey(key);
  const slash = bytes.lastIndexOf(0x2f);
  return slash < 0 ? "." : keyOfBytes(bytes.subarray(0, slash));
}

/** Whether `key` is `dir` or inside it. */
export function keyWithin(dir: string, key: string): boolean {
  if (dir === "." || dir === key) return true;
  const d = bytesOfKey(dir);
  const k = bytesOfKey(key);
  return k.length > d.length && k[d.length] === 0x2f && k.subarray(0, d.length).equals(d);
}

// JSON.stringify escapes C0 controls but leaves DEL, the C1 controls (U+009B is CSI to terminals that
// read 8-bit controls) and the bidi controls as they are. Written as \u escapes, a JSON reader gets
// the same string back and a terminal showing the line gets nothing to obey.
const unsafe = /[\u007f-\u009f\u200b\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/g;

/** `JSON.stringify(value, null, indent)` with every character a terminal could act on escaped. */
export function terminalJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    unsafe,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

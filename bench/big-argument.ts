// The tool-call argument the assembly benchmark streams: a write_file call whose JSON text is about
// `bytes` UTF-8 bytes, with newlines (escaped in JSON) and multi-byte characters, as real code has.

/** The argument's JSON text, about `bytes` long in UTF-8. */
export function bigArgument(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes - 40; i++) {
    const line = `const value${i} = "données ${i}"; // ok\n`;
    lines.push(line);
    size += Buffer.byteLength(JSON.stringify(line)) - 2;
  }
  return JSON.stringify({ path: "src/generated.ts", content: lines.join("") });
}

/** Splits text into exactly `count` fragments of near-equal length (by UTF-16 unit, BMP text only). */
export function fragments(text: string, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    out.push(
      text.slice(
        Math.floor((i * text.length) / count),
        Math.floor(((i + 1) * text.length) / count),
      ),
    );
  }
  return out;
}

import { createTwoFilesPatch } from "diff";

/** A unified diff of two texts, cut to `maxLines` lines with a note of how many were left out. */
export function shortDiff(display: string, before: string, after: string, maxLines = 60): string {
  const patch = createTwoFilesPatch(
    `a/${display}`,
    `b/${display}`,
    before,
    after,
    undefined,
    undefined,
    { context: 2 },
  );
  const lines = patch
    .split("\n")
    .filter((line) => !line.startsWith("=====") && !line.startsWith("Index:"));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length <= maxLines) return lines.join("\n");
  return `${lines.slice(0, maxLines).join("\n")}\n… (${lines.length - maxLines} more diff lines)`;
}

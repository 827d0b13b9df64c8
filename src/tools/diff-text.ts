/**
 * A unified diff of two texts, cut to `maxLines` lines with a note of how many were left out.
 * The diff library is loaded on first use; a new file's diff (every line added) needs none.
 */
export async function shortDiff(
  display: string,
  before: string,
  after: string,
  maxLines = 60,
): Promise<string> {
  const lines =
    before === "" ? creationLines(display, after) : await patchLines(display, before, after);
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length <= maxLines) return lines.join("\n");
  return `${lines.slice(0, maxLines).join("\n")}\n… (${lines.length - maxLines} more diff lines)`;
}

async function patchLines(display: string, before: string, after: string): Promise<string[]> {
  const { createTwoFilesPatch } = await import("diff");
  const patch = createTwoFilesPatch(
    `a/${display}`,
    `b/${display}`,
    before,
    after,
    undefined,
    undefined,
    { context: 2 },
  );
  return patch
    .split("\n")
    .filter((line) => !line.startsWith("=====") && !line.startsWith("Index:"));
}

/** The lines `patchLines` gives for a file that was empty or absent: one hunk adding every line. */
function creationLines(display: string, after: string): string[] {
  const lines = [`--- a/${display}`, `+++ b/${display}`];
  if (after === "") return lines;
  const added = after.split("\n");
  const newline = added[added.length - 1] === "";
  if (newline) added.pop();
  lines.push(`@@ -0,0 +1,${added.length} @@`);
  for (const line of added) lines.push(`+${line}`);
  if (!newline) lines.push("\\ No newline at end of file");
  return lines;
}

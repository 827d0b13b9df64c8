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

/**
 * Changed lines the minimal diff may search for. Its cost grows with the file's length times the
 * number of changes: rewriting every line of a 1 MB file took 35-55 s of CPU, blocking the process
 * after the write had already happened, to show 60 lines. Past this bound, one coarse hunk is shown.
 */
export const MAX_DIFF_EDITS = 1000;

async function patchLines(display: string, before: string, after: string): Promise<string[]> {
  const { createTwoFilesPatch } = await import("diff");
  const patch = createTwoFilesPatch(
    `a/${display}`,
    `b/${display}`,
    before,
    after,
    undefined,
    undefined,
    { context: 2, maxEditLength: MAX_DIFF_EDITS },
  );
  if (patch === undefined) return coarseLines(display, before, after);
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

/** One hunk from the first changed line to the last: linear in the texts, and a valid unified diff. */
function coarseLines(display: string, before: string, after: string): string[] {
  const old = fileLines(before);
  const now = fileLines(after);
  let start = 0;
  while (
    start < old.lines.length &&
    start < now.lines.length &&
    old.lines[start] === now.lines[start]
  )
    start++;
  let tail = 0;
  while (
    tail < old.lines.length - start &&
    tail < now.lines.length - start &&
    old.lines[old.lines.length - 1 - tail] === now.lines[now.lines.length - 1 - tail] &&
    old.newline === now.newline
  )
    tail++;
  const removed = old.lines.slice(start, old.lines.length - tail);
  const added = now.lines.slice(start, now.lines.length - tail);
  const range = (count: number) => `${count === 0 ? start : start + 1},${count}`;
  const out = [`--- a/${display}`, `+++ b/${display}`];
  out.push(`@@ -${range(removed.length)} +${range(added.length)} @@`);
  for (const line of removed) out.push(`-${line}`);
  if (tail === 0 && !old.newline && removed.length > 0) out.push("\\ No newline at end of file");
  for (const line of added) out.push(`+${line}`);
  if (tail === 0 && !now.newline && added.length > 0) out.push("\\ No newline at end of file");
  return out;
}

function fileLines(text: string): { lines: string[]; newline: boolean } {
  if (text === "") return { lines: [], newline: true };
  const lines = text.split("\n");
  const newline = lines[lines.length - 1] === "";
  if (newline) lines.pop();
  return { lines, newline };
}

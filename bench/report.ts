// The figures a benchmark reports, and the summary table `npm run bench` ends with.

/** One measured figure beside the goal it is measured against. */
export interface Figure {
  section: string;
  name: string;
  value: string;
  goal: string;
  /** `info` for a figure with no goal of its own (shown for context). */
  verdict: "met" | "not met" | "info";
}

/** `met` or `not met`. */
export function verdict(ok: boolean): Figure["verdict"] {
  return ok ? "met" : "not met";
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** "median 41.2 ms (min 39.8, max 55.0)": the spread shows how noisy the machine was. */
export function spread(values: readonly number[], unit = "ms", digits = 1): string {
  const min = Math.min(...values);
  const max = Math.max(...values);
  return `median ${median(values).toFixed(digits)} ${unit} (min ${min.toFixed(digits)}, max ${max.toFixed(digits)}, n=${values.length})`;
}

export const mb = (kb: number): string => `${(kb / 1024).toFixed(1)} MB`;

/** Prints a section heading and its detail lines as the section runs. */
export function say(line: string): void {
  console.log(line);
}

export function printSummary(figures: readonly Figure[]): void {
  const headers = ["section", "figure", "measured", "goal", "verdict"];
  const rows = figures.map((f) => [f.section, f.name, f.value, f.goal, f.verdict]);
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join("  ")
      .trimEnd();
  console.log(`\n${line(headers)}`);
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
  const missed = figures.filter((f) => f.verdict === "not met");
  console.log(
    missed.length === 0
      ? `\nEvery goal met (${figures.filter((f) => f.verdict === "met").length} figures with a goal).`
      : `\n${missed.length} goal(s) not met: ${missed.map((f) => `${f.section} / ${f.name}`).join("; ")}.`,
  );
}

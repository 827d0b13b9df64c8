// The suite's table: scenario | wire | outcome | requests sent | exit code.
import type { FaultResult } from "./fault-runner.ts";

/** The outcome cell: "safe: what nex did", "UNSAFE: what went wrong", or "todo" for a known gap. */
export function outcomeCell(result: FaultResult): string {
  const { scenario, problems } = result;
  if (problems.length === 0) return `safe: ${scenario.expect}`;
  const label = scenario.todo ? `todo (${scenario.todo})` : "UNSAFE";
  return `${label}: ${problems.join("; ")}`;
}

/** The results as a Markdown table, with a line of totals. */
export function formatTable(results: FaultResult[], elapsedMs?: number): string {
  const rows = results.map((r, i) => [
    String(i + 1),
    r.scenario.name,
    r.scenario.wire,
    outcomeCell(r),
    String(r.outcome.requests.length),
    String(r.outcome.code),
  ]);
  const header = ["#", "scenario", "wire", "outcome", "requests", "exit"];
  const widths = header.map((h, c) =>
    Math.max(h.length, ...rows.map((row) => row[c]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(" | ")} |`;
  const unsafe = results.filter((r) => r.problems.length > 0 && !r.scenario.todo).length;
  const todo = results.filter((r) => r.problems.length > 0 && r.scenario.todo).length;
  const time = elapsedMs === undefined ? "" : ` in ${(elapsedMs / 1000).toFixed(1)} s`;
  return [
    line(header),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map(line),
    "",
    `${results.length} scenarios${time}: ${results.length - unsafe - todo} safe, ${unsafe} UNSAFE, ${todo} known gaps (todo).`,
  ].join("\n");
}

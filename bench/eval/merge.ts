// node bench/eval/merge.ts DIR... : one table from runs of the same suite split over several
// servers (or resumed): each task's result from the first directory that has it, in suite order.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { renderMarkdown } from "./report.ts";
import type { SuiteRecord, TaskResult } from "./suite.ts";
import { loadTasks } from "./tasks.ts";

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error("usage: node bench/eval/merge.ts RESULTS_DIR...");
  process.exit(2);
}
const suites = dirs.map(
  (dir) => JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as SuiteRecord,
);
const byId = new Map<string, TaskResult>();
for (const suite of suites)
  for (const result of suite.results) if (!byId.has(result.id)) byId.set(result.id, result);
const order = loadTasks().map((task) => task.id);
const [first] = suites as [SuiteRecord];
const merged: SuiteRecord = {
  ...first,
  label: suites
    .map((suite) => suite.label)
    .filter((l, i, all) => all.indexOf(l) === i)
    .join(" + "),
  results: order.flatMap((id) => byId.get(id) ?? []),
};
console.log(renderMarkdown(merged));

// `npm run faults`: runs every fault scenario against the real nex and prints the table.
// Exits 1 when a scenario is UNSAFE (a known gap marked todo does not count).
// Usage: node test/faults/print-table.ts [--concurrency N] [name filter]
import { parseArgs } from "node:util";
import { allScenarios } from "./all-scenarios.ts";
import { runAll } from "./fault-runner.ts";
import { formatTable } from "./fault-table.ts";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { concurrency: { type: "string", default: "4" } },
});
const filter = positionals[0]?.toLowerCase();
const chosen = filter
  ? allScenarios.filter((s) => `${s.wire} ${s.name}`.toLowerCase().includes(filter))
  : allScenarios;
const started = Date.now();
const results = await runAll(chosen, Number(values.concurrency), (result) => {
  const mark = result.problems.length === 0 ? "." : result.scenario.todo ? "t" : "F";
  process.stderr.write(mark);
});
process.stderr.write("\n");
console.log(formatTable(results, Date.now() - started));
if (results.some((r) => r.problems.length > 0 && !r.scenario.todo)) process.exitCode = 1;

// The fault suite in CI: one test per scenario, each running the real nex against the stub endpoint.
// The table of every scenario's outcome is printed once all have run (`npm run faults` prints it alone).
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { sandboxMissing } from "../support/bwrap.ts";
import { allScenarios } from "./all-scenarios.ts";
import { type FaultResult, runScenario } from "./fault-runner.ts";
import { formatTable } from "./fault-table.ts";

const results: FaultResult[] = [];
const started = Date.now();

describe("fault suite", { concurrency: 4 }, () => {
  for (const scenario of allScenarios) {
    const name = `${scenario.wire}: ${scenario.name} → ${scenario.expect}`;
    const skip =
      (scenario.needsSandbox ? sandboxMissing() : null) ?? scenario.skipUnless?.() ?? null;
    // A scenario whose safeguard failed hangs (a stall no timeout ends): this fails it instead. Far
    // longer than any scenario takes on a loaded machine; it measures nothing.
    const timeout = 600_000;
    const options = scenario.todo ? { todo: scenario.todo } : skip ? { skip } : { timeout };
    test(name, options, async (t) => {
      const result = await runScenario(scenario, t.signal);
      results.push(result);
      assert.deepEqual(result.problems, [], `stderr:\n${result.outcome.stderr}`);
    });
  }
  after(() => {
    const order = new Map(allScenarios.map((s, i) => [s, i]));
    results.sort((a, b) => (order.get(a.scenario) ?? 0) - (order.get(b.scenario) ?? 0));
    console.log(`\n${formatTable(results, Date.now() - started)}`);
  });
});

// `npm run bench`: nex's speed and memory figures, each beside its goal, with the machine they were
// measured on. Figures, not assertions: never part of `npm test`.
//   npm run bench -- --only startup,resume   some sections (startup, overhead, turns, assembly, resume, sandbox, mcp)
//   npm run bench -- --quick                 fewer repeats, and no 1M-message journal
//   npm run bench -- --compare main[,a86c4f5] [--runs 5] [--only shell]
//                                            every path a turn takes, this tree against commits
//   npm run bench -- --compare main --form package
//                                            the same, each built and run as its package installs it
import { parseArgs } from "node:util";
import { benchAssembly } from "./assembly.ts";
import { benchCompare } from "./compare.ts";
import { describeMachine } from "./machine.ts";
import { benchMcp } from "./mcp.ts";
import { benchOverhead } from "./overhead.ts";
import { type Figure, printSummary, say } from "./report.ts";
import { benchResume } from "./resume.ts";
import { benchSandbox } from "./sandbox.ts";
import { benchStartup } from "./startup.ts";
import { benchTurns } from "./turns.ts";

type Section = (options: { quick: boolean }) => Promise<Figure[]>;

const sections: Record<string, Section> = {
  startup: benchStartup,
  overhead: benchOverhead,
  turns: benchTurns,
  assembly: benchAssembly,
  resume: benchResume,
  sandbox: benchSandbox,
  mcp: benchMcp,
};

const { values } = parseArgs({
  options: {
    only: { type: "string" },
    quick: { type: "boolean", default: false },
    compare: { type: "string" },
    runs: { type: "string", default: "5" },
    form: { type: "string", default: "checkout" },
  },
});
if (values.compare !== undefined) {
  const runs = Number.parseInt(values.runs ?? "5", 10);
  if (!(runs >= 1)) {
    console.error(`--runs wants a whole number of runs (at least 1), not "${values.runs}".`);
    process.exit(2);
  }
  const form = values.form;
  if (form !== "checkout" && form !== "package") {
    console.error(
      `--form is "checkout" (run src/, the default) or "package" (built), not "${form}".`,
    );
    process.exit(2);
  }
  await benchCompare(values.compare, { runs, only: values.only, form });
  process.exit(0);
}
const chosen = values.only ? values.only.split(",").map((s) => s.trim()) : Object.keys(sections);
const unknown = chosen.filter((name) => !(name in sections));
if (unknown.length > 0) {
  console.error(
    `Unknown section(s): ${unknown.join(", ")}. Choose from: ${Object.keys(sections).join(", ")}.`,
  );
  process.exit(2);
}

say("# nex benchmarks");
for (const line of describeMachine()) say(line);
const quick = values.quick ?? false;
if (quick) say("(--quick: one run per figure, no 1M-message journal)");
const started = performance.now();
const figures: Figure[] = [];
for (const name of chosen) figures.push(...(await (sections[name] as Section)({ quick })));
printSummary(figures);
say(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);

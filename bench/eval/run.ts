// npm run eval -- --base-url URL --model NAME [--only a,b*] [--api-key-env VAR] [--out DIR]
//                 [--label TEXT] [--max-turns N] [--max-time 10m] [--nex-arg ARG]... [--keep]
// npm run eval -- --verify        checks that every task's check fails before and passes with its solution
import { join } from "node:path";
import { parseArgs } from "node:util";
import { summarize } from "./report.ts";
import { runSuite } from "./suite.ts";
import { loadTasks, selectTasks } from "./tasks.ts";
import { verifyTask } from "./verify.ts";

const usage =
  "usage: npm run eval -- --base-url URL --model NAME [--only a,b*] [--api-key-env VAR] [--out DIR] [--label TEXT] [--max-turns N] [--max-time 10m] [--nex-arg ARG]... [--nex DIR] [--keep] | --verify [--only ...]";

async function main(): Promise<number> {
  // A short name in the process list: a long run should not match someone's `pkill -f` of other work.
  process.title = "nex-eval";
  const { values } = parseArgs({
    options: {
      "base-url": { type: "string" },
      model: { type: "string" },
      only: { type: "string" },
      "api-key-env": { type: "string" },
      out: { type: "string" },
      label: { type: "string" },
      "max-turns": { type: "string" },
      "max-time": { type: "string" },
      "nex-arg": { type: "string", multiple: true },
      keep: { type: "boolean" },
      nex: { type: "string" },
      verify: { type: "boolean" },
      help: { type: "boolean" },
    },
  });
  if (values.help) {
    console.log(usage);
    return 0;
  }
  const tasks = selectTasks(loadTasks(), values.only);
  if (values.verify) {
    let bad = 0;
    for (const task of tasks) {
      const verdict = verifyTask(task);
      if (!verdict.ok) bad += 1;
      console.log(
        `${verdict.ok ? "ok  " : "BAD "} ${task.id}${verdict.problems.map((p) => `\n     ${p}`).join("")}`,
      );
    }
    console.log(`${tasks.length - bad}/${tasks.length} tasks have a sound check`);
    return bad === 0 ? 0 : 1;
  }
  if (!values["base-url"] || !values.model) {
    console.error(`--base-url and --model are needed\n${usage}`);
    return 2;
  }
  const outDir =
    values.out ??
    join(import.meta.dirname, "results", new Date().toISOString().replace(/[:.]/g, "-"));
  const maxTurns = values["max-turns"] ? Number(values["max-turns"]) : undefined;
  console.error(`eval: ${tasks.length} tasks against ${values.model}; results in ${outDir}`);
  const suite = await runSuite({
    baseUrl: values["base-url"],
    model: values.model,
    apiKeyEnv: values["api-key-env"],
    tasks,
    outDir,
    label: values.label,
    maxTurns,
    maxTime: values["max-time"],
    nexArgs: values["nex-arg"] ?? [],
    keep: values.keep,
    ...(values.nex ? { nexDir: values.nex } : {}),
    onTask: (r) =>
      console.error(
        `${r.solved ? "solved  " : "unsolved"} ${r.id}: ${r.requests} requests, ${r.inputTokens}+${r.outputTokens} tokens, ${(r.wallMs / 1000).toFixed(0)} s${r.solved ? "" : `; ${r.end === "done" ? "" : `${r.end} ${r.endDetail}; `}${r.failure}`}`,
      ),
  });
  const totals = summarize(suite.results);
  console.error(`eval: solved ${totals.solved}/${totals.tasks}; ${join(outDir, "results.md")}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`eval: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);

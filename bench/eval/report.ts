// The markdown table of a suite run, with its totals and figures of merit.
import type { SuiteRecord, TaskResult } from "./suite.ts";

export function renderMarkdown(suite: SuiteRecord): string {
  const rows = suite.results.map(row);
  const totals = summarize(suite.results);
  return [
    `## ${suite.label}: ${suite.model}`,
    "",
    `nex ${suite.nexCommit ?? "(unknown commit)"}, endpoint ${suite.baseUrl}, started ${suite.startedAt}${suite.nexArgs.length ? `, nex args \`${suite.nexArgs.join(" ")}\`` : ""}.`,
    "",
    "| task | solved | requests | tokens in | cached | tokens out | wall s | refused / failed tool calls | why not solved |",
    "|---|---|---|---|---|---|---|---|---|",
    ...rows,
    "",
    `**Solved ${totals.solved}/${totals.tasks}**; requests ${totals.requests}, tokens in ${totals.inputTokens} (cached ${totals.cachedTokens}), out ${totals.outputTokens}, wall ${Math.round(totals.wallMs / 1000)} s; per solved task: ${perSolved(totals.inputTokens + totals.outputTokens, totals.solved)} tokens, ${perSolved(totals.requests, totals.solved)} requests.`,
    "",
  ].join("\n");
}

export interface Totals {
  tasks: number;
  solved: number;
  requests: number;
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  wallMs: number;
}

export function summarize(results: TaskResult[]): Totals {
  const sum = (pick: (r: TaskResult) => number) => results.reduce((t, r) => t + pick(r), 0);
  return {
    tasks: results.length,
    solved: results.filter((r) => r.solved).length,
    requests: sum((r) => r.requests),
    inputTokens: sum((r) => r.inputTokens),
    cachedTokens: sum((r) => r.cachedTokens),
    outputTokens: sum((r) => r.outputTokens),
    wallMs: sum((r) => r.wallMs),
  };
}

function perSolved(total: number, solved: number): string {
  return solved === 0 ? "n/a" : String(Math.round(total / solved));
}

function row(r: TaskResult): string {
  const problems = r.toolProblems.map((p) => `${p.tool} ${p.kind}`);
  const requestProblems = r.requestProblems.map((p) =>
    `request ${p.status ?? ""} ${p.code}`.replace("  ", " "),
  );
  const why = r.solved
    ? ""
    : [r.end === "done" ? "" : `${r.end} ${r.endDetail}`, r.failure].filter(Boolean).join("; ");
  // Records from before the runner waited for an idle server have no serverWait.
  const wait = r.serverWait?.stillBusy
    ? ` (server still busy with earlier work after ${(r.serverWait.waitedMs / 1000).toFixed(0)} s)`
    : r.serverWait && r.serverWait.waitedMs >= 1000
      ? ` (after ${(r.serverWait.waitedMs / 1000).toFixed(0)} s for the server to finish earlier work)`
      : "";
  return `| ${r.id} | ${r.solved ? "yes" : "**no**"} | ${r.requests} | ${r.inputTokens} | ${r.cachedTokens} | ${r.outputTokens} | ${(r.wallMs / 1000).toFixed(0)}${wait} | ${cell(countEach([...problems, ...requestProblems]))} | ${cell(why)} |`;
}

function countEach(items: string[]): string {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return [...counts].map(([item, n]) => (n > 1 ? `${item} ×${n}` : item)).join(", ");
}

function cell(text: string): string {
  const flat = text.replace(/\s+/g, " ").replace(/\|/g, "\\|").trim();
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}

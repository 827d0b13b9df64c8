// The time budget of a `nex run`: `--max-time`, or the task's own budget when workgraph spawned the
// run (it sets WG_TASK_TIMEOUT_SECS and WG_SPAWN_EPOCH for every executor, and its executor files have
// no variable to pass the budget on the command line). When both are set the smaller one holds, so
// the model wraps up before workgraph stops the task from outside.
import { ConfigError } from "../runtime/config/index.ts";

/** The budget a run keeps, and what set it (for every message that names it). */
export interface TaskBudget {
  /** Milliseconds left for this run; 0 when the task's budget was spent before nex started. */
  ms: number;
  /** What set it: `--max-time`, or workgraph's variable. */
  label: string;
  /** A line for stderr when the budget came from the environment, else null. */
  note: string | null;
}

const TIMEOUT = "WG_TASK_TIMEOUT_SECS";
const EPOCH = "WG_SPAWN_EPOCH";

/** The run's budget from `--max-time` and workgraph's variables; null when neither sets one. */
export function taskBudget(
  flagMs: number | undefined,
  env: Record<string, string | undefined>,
  nowMs: number,
): TaskBudget | null {
  const fromFlag =
    flagMs === undefined ? null : { ms: flagMs, label: "--max-time", note: null as string | null };
  const timeout = wholeSeconds(env[TIMEOUT], TIMEOUT, "the task's time budget");
  if (timeout === null || timeout === 0) return fromFlag;
  const epoch = wholeSeconds(env[EPOCH], EPOCH, "when workgraph spawned the task, in Unix seconds");
  // A spawn time ahead of this clock (another machine's clock) counts as now: never a budget larger than given.
  const elapsedMs = epoch === null ? 0 : Math.max(0, nowMs - epoch * 1000);
  const leftMs = Math.max(0, timeout * 1000 - elapsedMs);
  const label = `workgraph's ${TIMEOUT}=${timeout}`;
  if (fromFlag && fromFlag.ms <= leftMs) return fromFlag;
  const spent = epoch === null ? "" : `, spawned ${Math.round(elapsedMs / 1000)}s ago`;
  return {
    ms: leftMs,
    label,
    note:
      leftMs === 0
        ? null
        : `the time budget is the ${Math.round(leftMs / 1000)}s left of the task's (${label}${spent})${fromFlag ? ", less than --max-time" : ""}.`,
  };
}

function wholeSeconds(value: string | undefined, name: string, what: string): number | null {
  if (value === undefined || value.trim() === "") return null;
  if (!/^\d{1,12}$/.test(value.trim()))
    throw new ConfigError(
      `${name} (${what}) must be a whole number of seconds, not "${value}"; fix or unset it in the executor's environment.`,
    );
  return Number(value.trim());
}

// Prints what `nex doctor` found: one verdict per check as it is known (or one JSON document with
// --json), the request count, and an exit status that tells the truth.

import { plainText } from "../protocol/index.ts";
import type { ConfigFlags } from "../runtime/config/index.ts";
import {
  type DoctorCheck,
  type DoctorReport,
  type DoctorTarget,
  runDoctor,
} from "../runtime/doctor/index.ts";
import { onStopSignals, SIGNAL_EXIT, type StopSignal } from "../runtime/session/index.ts";
import { EXIT } from "./exit-code.ts";
import { terminalJson } from "./terminal-json.ts";

/** How to print. */
export interface DoctorPrintOptions {
  json: boolean;
  /** Where the report goes (stdout). */
  out: (text: string) => void;
}

const LABEL: Record<DoctorCheck["status"], string> = {
  pass: "PASS",
  warn: "WARN",
  fail: "FAIL",
  skip: "SKIP",
};

/** The opening line: what is being checked. */
export function formatTarget(target: DoctorTarget): string {
  const model = target.model ?? "no model given";
  return `nex doctor: ${target.provider} endpoint ${target.baseUrl}, ${model}\n\n`;
}

/**
 * One check as text: its verdict and finding, and on the next line what to do when it did not pass.
 * Findings quote the endpoint and the model, so terminal control is stripped.
 */
export function formatCheck(check: DoctorCheck): string {
  const line = `${LABEL[check.status]}  ${check.title}: ${plainText(check.found)}\n`;
  return check.next && check.status !== "pass"
    ? `${line}      next: ${plainText(check.next)}\n`
    : line;
}

/** The closing lines: counts, the model used, and the requests sent. */
export function formatSummary(report: DoctorReport): string {
  const count = (status: DoctorCheck["status"]) =>
    report.checks.filter((check) => check.status === status).length;
  const parts = [`${count("pass")} passed`, `${count("warn")} warned`, `${count("fail")} failed`];
  if (count("skip") > 0) parts.push(`${count("skip")} skipped`);
  const verdict = report.interrupted
    ? "Interrupted."
    : count("fail") > 0
      ? "Fix the failures above before relying on this endpoint; nex refuses whatever it cannot verify, so it stays safe, but work may not get done."
      : count("warn") > 0
        ? "nex can work with this endpoint; read the warnings."
        : "nex can work with this endpoint.";
  const requests = `${report.requests} ${report.requests === 1 ? "request" : "requests"} sent`;
  return `\n${parts.join(", ")}; ${requests}. ${verdict}\n`;
}

/** 0 when nothing failed, 3 when the key was refused, 1 for any other failure, 128 + signal number when stopped. */
export function doctorExitCode(report: DoctorReport, stoppedBy: StopSignal | null = null): number {
  if (report.interrupted) return SIGNAL_EXIT[stoppedBy ?? "SIGINT"];
  const failed = report.checks.filter((check) => check.status === "fail");
  if (failed.some((check) => check.id === "key")) return EXIT.config;
  return failed.length > 0 ? EXIT.failure : EXIT.done;
}

/** Runs `nex doctor`, printing as it goes; Ctrl-C cancels the request in flight. Returns the exit status. */
export async function runDoctorReport(
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
  options: DoctorPrintOptions,
): Promise<number> {
  const controller = new AbortController();
  let stoppedBy: StopSignal | null = null;
  const stopWatching = onStopSignals((signal) => {
    stoppedBy ??= signal;
    controller.abort();
  });
  try {
    const report = await runDoctor(flags, env, cwd, {
      signal: controller.signal,
      ...(options.json
        ? {}
        : {
            onStart: (target) => options.out(formatTarget(target)),
            onCheck: (check) => options.out(formatCheck(check)),
          }),
    });
    const code = doctorExitCode(report, stoppedBy);
    if (options.json) {
      options.out(`${terminalJson({ ...report, exitCode: code }, 2)}\n`);
    } else {
      options.out(formatSummary(report));
    }
    return code;
  } finally {
    stopWatching();
  }
}

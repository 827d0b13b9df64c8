// What one `nex doctor` run has found so far: its counted HTTP client, its verdicts (redacted, sent
// to the caller as they come) and the report they make.
import { type HttpFetch, redact } from "../../providers/index.ts";
import { endpointFetch, type NexConfig } from "../config/index.ts";
import { CHECK_ORDER, check, type DoctorCheck } from "./doctor-checks.ts";

/** How to run the checks. */
export interface DoctorOptions {
  /** Aborts the request in flight (Ctrl-C); the remaining checks are skipped. */
  signal: AbortSignal;
  /** Called once the configuration is resolved, before any request. */
  onStart?: (target: DoctorTarget) => void;
  /** Called with each verdict as soon as it is known, in display order. */
  onCheck?: (check: DoctorCheck) => void;
  /** The HTTP client (default node:http); every call is counted. */
  fetch?: HttpFetch;
  /** How long the prompt-cache probe may take before it is left unmeasured (default 60 s). */
  prefixDeadlineMs?: number;
}

/** The endpoint under test, as configured. */
export interface DoctorTarget {
  provider: string;
  baseUrl: string;
  /** The model given (flag, NEX_MODEL or config), or null. */
  model: string | null;
}

/** Everything doctor found. */
export interface DoctorReport {
  provider: string;
  baseUrl: string;
  /** The model the checks used: given, or the only one served; null when none could be chosen. */
  model: string | null;
  checks: DoctorCheck[];
  /** HTTP requests sent, retries included. */
  requests: number;
  /** Ctrl-C stopped the checks. */
  interrupted: boolean;
}

/** The checks of one run as they are found. */
export interface DoctorRecorder {
  /** The HTTP client every request goes through, counted. */
  counted: HttpFetch;
  /** The model the checks use, once chosen. */
  model: string | null;
  emit(...found: DoctorCheck[]): void;
  /** Marks every check not yet done as skipped, for `why`. */
  skipRest(why: string): void;
  /** The rest skipped as interrupted, and the report. */
  interrupted(): DoctorReport;
  report(): DoctorReport;
}

export function createDoctorRecorder(config: NexConfig, options: DoctorOptions): DoctorRecorder {
  let requests = 0;
  const base = options.fetch;
  const checks: DoctorCheck[] = [];
  // Every message is built without the key; this is the last line of defence should a server echo it.
  const secrets = config.apiKey ? [config.apiKey] : [];
  const recorder: DoctorRecorder = {
    counted: (url, init) => {
      requests++;
      return (base ?? endpointFetch(config))(url, init);
    },
    model: config.model,
    emit(...found) {
      for (const raw of found) {
        const one = {
          ...raw,
          found: redact(raw.found, secrets),
          next: raw.next === null ? null : redact(raw.next, secrets),
        };
        checks.push(one);
        options.onCheck?.(one);
      }
    },
    skipRest(why) {
      const done = new Set(checks.map((one) => one.id));
      recorder.emit(
        ...CHECK_ORDER.filter((id) => !done.has(id)).map((id) => check(id, "skip", why)),
      );
    },
    interrupted() {
      recorder.skipRest("skipped: interrupted");
      return recorder.report();
    },
    report: () => ({
      provider: config.provider,
      baseUrl: config.baseUrl,
      model: recorder.model,
      checks,
      requests,
      interrupted: options.signal.aborted,
    }),
  };
  return recorder;
}

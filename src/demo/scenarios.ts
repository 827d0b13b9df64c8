// The misbehaviours of the seed reports, scripted: each scenario is what the demo endpoint answers,
// in order, and what nex must have done by the end. The model's side is played by the script; nex's
// side is the real client, loop and tools.
import type { TerminalEvent } from "../protocol/index.ts";
import { openaiText, openaiToolCall, type Script, status } from "./scripts.ts";

/** What a finished scenario left behind, for its check. */
export interface ScenarioOutcome {
  terminal: TerminalEvent;
  /** Times (ms) at which the endpoint received each model request. */
  requestTimes: number[];
  readFile: (path: string) => string | null;
}

/** One demonstration: a task, the endpoint's scripted answers, and what nex must have done. */
export interface DemoScenario {
  name: string;
  title: string;
  task: string;
  files: Record<string, string>;
  scripts: Script[];
  /** Answer for every model request once `scripts` is used up (a storm); default: none. */
  always?: Script;
  /** What nex does here, in one sentence. */
  expect: string;
  /** Null when nex behaved as promised, else what went wrong. */
  check: (outcome: ScenarioOutcome) => string | null;
}

const forecast = Array.from(
  { length: 40 },
  (_, i) =>
    `Day ${i + 1}: Copenhagen, ${14 + (i % 7)}°C, wind ${3 + (i % 5)} m/s, ${i % 3 === 0 ? "showers" : "clouds"}`,
).join("\n");
const half = forecast.indexOf("Day 21");

const settings = [
  "# settings.py: the application's configuration",
  "DEBUG = True",
  ...Array.from({ length: 198 }, (_, i) => `OPTION_${i + 1} = ${i * 7}  # keep`),
].join("\n");

const rateLimited = {
  error: {
    message: "Rate limit reached for demo-model: 10 requests per minute.",
    type: "rate_limit_error",
  },
};

const cutWrite = (usage = true): Script =>
  openaiToolCall({
    name: "write_file",
    args: { path: "forecast.txt", content: forecast },
    cutAt: 600,
    finishReason: "length",
    includeDone: true,
    usage: usage ? { input: 900, output: 8192 } : null,
  });

function expectDone(outcome: ScenarioOutcome): string | null {
  return outcome.terminal.type === "done"
    ? null
    : `the session ended with ${outcome.terminal.type}`;
}

export const SCENARIOS: DemoScenario[] = [
  {
    name: "truncated-write",
    title:
      "A write_file cut off by the output limit, the gateway still saying all is well (seed 000)",
    task: "Write the 40-day Copenhagen forecast to forecast.txt.",
    files: {},
    scripts: [
      cutWrite(),
      openaiToolCall({
        name: "write_file",
        args: { path: "forecast.txt", content: `${forecast.slice(0, half)}`, part: 1, parts: 2 },
      }),
      openaiToolCall({
        name: "write_file",
        args: { path: "forecast.txt", content: forecast.slice(half), part: 2, parts: 2 },
      }),
      openaiText("forecast.txt is written: 40 lines, committed in two parts."),
    ],
    expect:
      "refuses the cut call (nothing is written), tells the model why; the model writes in parts and the file is whole.",
    check: (o) =>
      expectDone(o) ??
      (o.readFile("forecast.txt") === forecast
        ? null
        : "forecast.txt is not the complete forecast"),
  },
  {
    name: "dropped-argument",
    title: "A write_file whose `content` argument was dropped (seed 001)",
    task: "Write the release notes to NOTES.md.",
    files: {},
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "NOTES.md" } }),
      openaiToolCall({
        name: "write_file",
        args: { path: "NOTES.md", content: "# Release notes\n\n- Faster start-up.\n" },
      }),
      openaiText("NOTES.md is written."),
    ],
    expect:
      "refuses the call that lacks `content` and names the key; no empty file appears; the re-emitted call writes it.",
    check: (o) =>
      expectDone(o) ??
      (o.readFile("NOTES.md") === "# Release notes\n\n- Faster start-up.\n"
        ? null
        : "NOTES.md does not hold the notes"),
  },
  {
    name: "400-storm",
    title: "An endpoint that answers every request with 400 (seed 002)",
    task: "Continue where we left off.",
    files: {},
    scripts: [],
    always: status(400, {
      body: {
        error: {
          message: "Invalid 'messages[311].content': expected a string.",
          type: "invalid_request_error",
        },
      },
    }),
    expect: "sends exactly one request, shows the error in full and stops with a failure status.",
    check: (o) =>
      o.requestTimes.length !== 1
        ? `the endpoint received ${o.requestTimes.length} requests`
        : o.terminal.type === "error"
          ? null
          : "the session did not end with the error",
  },
  {
    name: "rate-limited",
    title: "A 429 with Retry-After: 2",
    task: "Summarise the project in one line.",
    files: {},
    scripts: [
      status(429, { headers: { "retry-after": "2" }, body: rateLimited }),
      openaiText("A demo workspace with nothing in it yet."),
    ],
    expect: "waits the 2 seconds the endpoint asked for, once, then succeeds.",
    check: (o) => {
      const [first, second] = o.requestTimes;
      if (o.requestTimes.length !== 2 || first === undefined || second === undefined) {
        return `the endpoint received ${o.requestTimes.length} requests`;
      }
      return second - first >= 1900 ? expectDone(o) : `the retry came after ${second - first} ms`;
    },
  },
  {
    name: "retry-after-120",
    title: "A 429 asking to wait 120 seconds",
    task: "Summarise the project in one line.",
    files: {},
    scripts: [],
    always: status(429, { headers: { "retry-after": "120" }, body: rateLimited }),
    expect:
      "does not sleep two minutes behind a spinner: it stops at once and says when to try again.",
    check: (o) =>
      o.requestTimes.length === 1 && o.terminal.type === "error"
        ? null
        : `the endpoint received ${o.requestTimes.length} requests`,
  },
  {
    name: "unread-overwrite",
    title: "A model overwriting a 200-line file it never read (seed 004)",
    task: "Turn DEBUG off in settings.py.",
    files: { "settings.py": settings },
    scripts: [
      openaiToolCall({
        name: "write_file",
        args: { path: "settings.py", content: "DEBUG = False\nOPTION_1 = 0\n" },
      }),
      openaiToolCall({ name: "read_file", args: { path: "settings.py" } }),
      openaiToolCall({
        name: "edit_file",
        args: { path: "settings.py", old_string: "DEBUG = True", new_string: "DEBUG = False" },
      }),
      openaiText("DEBUG is now False; the other 199 lines are untouched."),
    ],
    expect:
      "refuses to replace a file the session has not read; the model reads it and makes a one-line edit.",
    check: (o) =>
      expectDone(o) ??
      (o.readFile("settings.py") === settings.replace("DEBUG = True", "DEBUG = False")
        ? null
        : "settings.py lost content"),
  },
  {
    name: "truncates-every-turn",
    title: "A model whose write is cut by the output limit on every turn",
    task: "Write the 40-day Copenhagen forecast to forecast.txt.",
    files: {},
    scripts: [],
    always: cutWrite(),
    expect:
      "refuses each cut call, tells the model to write in parts after the second, and stops after the third.",
    check: (o) => {
      if (o.readFile("forecast.txt") !== null) return "a truncated forecast.txt was written";
      if (o.requestTimes.length > 4)
        return `the endpoint received ${o.requestTimes.length} requests`;
      return o.terminal.type === "error" ? null : "the session did not stop";
    },
  },
];

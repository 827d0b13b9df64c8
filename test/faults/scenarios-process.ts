// What outlives a command, what reaches the user's terminal, and what a run's exit status says:
// a command's detached processes are stopped (and the model told which) when it ends; model and
// tool text cannot drive the terminal; a run whose every change was refused does not exit 0.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { openaiText, openaiToolCall, openaiToolCalls } from "../support/stub-scripts.ts";
import {
  absent,
  exitCode,
  type FaultOutcome,
  type FaultScenario,
  fileIs,
  holds,
  stderrSays,
  told,
} from "./scenario.ts";

const wire = "openai";

/** Processes (any user's we can see) whose command line carries `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) found.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

/** The writer ran (its file has lines) and no process carrying `marker` is left to write more. */
function nothingStillWrites(marker: string, file: string) {
  return holds(
    `${file} was never written, or a process carrying ${marker} is still running`,
    (o) => {
      const written = statSync(`${o.box.workspace}/${file}`, { throwIfNoEntry: false });
      return (written?.size ?? 0) > 0 && processesWith(marker).length === 0;
    },
  );
}

// A writer that appends a line every 50 ms; `marker` makes it findable in /proc.
const writer = (file: string, marker: string, trap = "") =>
  `sh -c '${trap}while :; do echo tick >> ${file}; sleep 0.05; done # ${marker}'`;

// The last line meant for people: the machine-readable `nex: outcome {...}` line follows it.
const lastLine = (o: FaultOutcome) =>
  o.stderr
    .trimEnd()
    .split("\n")
    .filter((line) => !line.startsWith("nex: outcome "))
    .at(-1) ?? "";

// Unconfined (`--sandbox off`): in the sandbox, bubblewrap's PID namespace ends such processes with
// the command (scenarios-sandbox.ts); without it, nex must find and stop them itself.
const detached = (name: string, command: string, marker: string): FaultScenario => ({
  name: `${name} (sandbox off)`,
  wire,
  permission: ["--yes", "--sandbox", "off"],
  expect:
    "when the command ends, the process it left running is stopped (it writes no more) and the model is told its pid and command line",
  scripts: [openaiToolCall({ name: "bash", args: { command } }), openaiText("Started it.")],
  checks: [
    told(new RegExp(`nex stopped 1 process[\\s\\S]*pid \\d+: .*${marker}`)),
    nothingStillWrites(marker, "ticks.log"),
    exitCode(0),
  ],
});

const ESC = "\x1b";
const hostile =
  `Done.${ESC}]52;c;cm0gLXJmIH4K${ESC}\\${ESC}[2J${ESC}[H\u009b31m red\u202e txet desrever\u202c ` +
  "👩\u200d💻 می\u200cخواهم \u200fok\u200e.";
const joinersSurvive = holds("a joiner or directional mark was stripped from the answer", (o) =>
  ["👩\u200d💻", "می\u200cخواهم", "\u200fok\u200e"].every((text) => o.stdout.includes(text)),
);
// ESC, BEL, the C1 controls, bidi embeddings, overrides and isolates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
const terminalControl = /[\u001b\u0007\u0080-\u009f\u202a-\u202e\u2066-\u2069]/;
const noTerminalControl = holds(
  "stdout or stderr carries ESC, a C1 control or a bidi override",
  (o) => !terminalControl.test(o.stdout) && !terminalControl.test(o.stderr),
);

export const processScenarios: FaultScenario[] = [
  detached(
    "a command that starts a writer with setsid -f",
    `setsid -f ${writer("ticks.log", "nex-marker-setsid")} >/dev/null 2>&1; sleep 0.3; echo started`,
    "nex-marker-setsid",
  ),
  detached(
    "a command that double-forks a writer into a new session",
    `(setsid ${writer("ticks.log", "nex-marker-double-fork")} >/dev/null 2>&1 &); sleep 0.3; echo started`,
    "nex-marker-double-fork",
  ),
  detached(
    "a command that detaches a writer which ignores SIGTERM and SIGHUP (nohup, setsid, disown)",
    `setsid nohup ${writer("ticks.log", "nex-marker-nohup", 'trap "" TERM HUP; ')} >/dev/null 2>&1 & disown; sleep 0.3; echo started`,
    "nex-marker-nohup",
  ),
  detached(
    "a command that leaves a background job running (nohup … & disown, same process group)",
    `nohup ${writer("ticks.log", "nex-marker-background")} >/dev/null 2>&1 & disown; sleep 0.3; echo started`,
    "nex-marker-background",
  ),
  {
    name: "a detached writer that keeps the command's output open (sandbox off)",
    wire,
    permission: ["--yes", "--sandbox", "off"],
    expect:
      "the command ends when its own process does; the writer is stopped and the model is told",
    scripts: [
      openaiToolCall({
        name: "bash",
        args: { command: `setsid -f ${writer("ticks.log", "nex-marker-held")}; sleep 0.3` },
      }),
      openaiText("Started it."),
    ],
    checks: [
      told(/nex stopped 1 process[\s\S]*nex-marker-held/),
      nothingStillWrites("nex-marker-held", "ticks.log"),
      exitCode(0),
    ],
  },
  {
    name: "a final answer with a clipboard write (OSC 52), a screen clear, 8-bit CSI and a bidi override",
    wire,
    expect:
      "stdout and stderr carry none of it; zero-width joiners, ZWNJ and directional marks (emoji, Persian) survive",
    scripts: [openaiText(hostile)],
    checks: [noTerminalControl, joinersSurvive, exitCode(0)],
  },
  {
    name: "escape sequences in model text before a tool call and in a command's output",
    wire,
    expect: "the progress on stderr shows the text without them",
    scripts: [
      openaiToolCall({
        name: "bash",
        args: { command: "printf '\\033]52;c;cm0gLXJmIH4K\\007\\033[2Jcleared\\n'" },
        text: `Let me look 👩\u200d💻.${ESC}]0;owned${ESC}\\ \u009b2J`,
      }),
      openaiText("ok"),
    ],
    checks: [
      noTerminalControl,
      stderrSays(/cleared/),
      stderrSays(/Let me look 👩\u200d💻/),
      exitCode(0),
    ],
  },
  {
    name: "a --json run whose model text carries terminal control",
    wire,
    permission: ["--yes", "--json"],
    expect:
      "every line is JSON a terminal cannot act on (C1 and bidi controls escaped too), and it decodes to the exact text",
    scripts: [openaiText(hostile)],
    checks: [
      noTerminalControl,
      holds("the done event does not decode to the model's exact text", (o) => {
        const last = JSON.parse(o.stdout.trimEnd().split("\n").at(-1) ?? "{}");
        return last.type === "done" && last.finalText === hostile && last.exitCode === 0;
      }),
      exitCode(0),
    ],
  },
  {
    name: "a run in the default mode whose every change needed approval",
    wire,
    permission: [],
    expect:
      "exit 4, not 0; the last line says no changes were made and lists what needed approval and how to allow it",
    scripts: [
      openaiToolCalls([
        { name: "write_file", args: { path: "src/a.ts", content: "export const a = 1;\n" } },
        { name: "bash", args: { command: "npm install left-pad" } },
      ]),
      openaiText("I created src/a.ts and installed left-pad."),
    ],
    checks: [
      absent("src/a.ts"),
      exitCode(4),
      holds("the last line of stderr does not say what was refused", (o) =>
        /^nex: no changes were made .*2 actions needed approval.*write_file src\/a\.ts.*npm install left-pad.*--yes/.test(
          lastLine(o),
        ),
      ),
    ],
  },
  {
    name: "a --json run whose every change needed approval",
    wire,
    permission: ["--json"],
    expect: "the final JSON line is the done event with exitCode 4 and the refused actions",
    scripts: [
      openaiToolCall({ name: "write_file", args: { path: "a.txt", content: "x\n" } }),
      openaiText("Wrote a.txt."),
    ],
    checks: [
      absent("a.txt"),
      exitCode(4),
      holds("the final event does not carry the outcome", (o) => {
        const last = JSON.parse(o.stdout.trimEnd().split("\n").at(-1) ?? "{}");
        return (
          last.type === "done" &&
          last.exitCode === 4 &&
          last.outcome?.changes === 0 &&
          /write_file a\.txt/.test(last.outcome?.refused?.[0] ?? "")
        );
      }),
    ],
  },
  {
    name: "a run in the default mode that only reads and answers",
    wire,
    permission: [],
    files: { "notes.txt": "hello\n" },
    expect: "exit 0: nothing was refused",
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "notes.txt" } }),
      openaiText("It says hello."),
    ],
    checks: [
      exitCode(0),
      holds("stdout is not the answer", (o) => o.stdout === "It says hello.\n"),
    ],
  },
  {
    name: "an auto_edit run whose edit ran but whose command needed approval",
    wire,
    permission: ["--mode", "auto_edit"],
    expect: "exit 0 (a change was made); the last line names the refused command",
    scripts: [
      openaiToolCalls([
        { name: "write_file", args: { path: "a.txt", content: "x\n" } },
        { name: "bash", args: { command: "touch b.txt" } },
      ]),
      openaiText("Done both."),
    ],
    checks: [
      fileIs("a.txt", "x\n"),
      absent("b.txt"),
      exitCode(0),
      holds("the last line does not name the refused command", (o) =>
        /^nex: not everything was done: 1 action needed approval.*touch b\.txt/.test(lastLine(o)),
      ),
    ],
  },
];

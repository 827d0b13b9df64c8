import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { answerGuardMs } from "../../src/tui/input/keymap.ts";
import { keys, type PtyProcess, spawnPty } from "../support/pty.ts";
import { scratchDir } from "../support/scratch-dir.ts";

const runner = resolve(import.meta.dirname, "run-scripted.ts");

/** The TUI over a scripted session, in a real pseudo-terminal. */
export interface ScriptedTui {
  pty: PtyProcess;
  dir: string;
  /** The calls the TUI made on the session, in order. */
  calls(): { call: string; detail: unknown }[];
}

/** Starts the TUI over scenario `name` and waits for the prompt. */
export async function startScripted(
  name: string,
  options: { cols?: number; rows?: number; resumeLine?: string; answerGuardMs?: number } = {},
): Promise<ScriptedTui> {
  const dir = scratchDir("nex-tui-");
  const log = join(dir, "calls.jsonl");
  writeFileSync(log, "");
  const args = [
    runner,
    ...(options.answerGuardMs !== undefined ? [`--guard-ms=${options.answerGuardMs}`] : []),
    name,
    log,
    ...(options.resumeLine ? [options.resumeLine] : []),
  ];
  const pty = spawnPty(process.execPath, args, {
    cols: options.cols ?? 100,
    rows: options.rows ?? 30,
    env: { PATH: process.env.PATH ?? "", TERM: "xterm-256color", HOME: dir },
  });
  await pty.waitFor("/help for commands");
  // Ink turns on raw mode just after its first frame; keys sent before that are cooked by the tty.
  await pty.readyForKeys();
  return {
    pty,
    dir,
    calls: () =>
      readFileSync(log, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line)),
  };
}

/** Types `text` at the prompt, waits until it shows, then presses Enter. */
export async function typeAndSubmit(pty: PtyProcess, text: string): Promise<void> {
  pty.write(text);
  const lastLine = text.split("\n").at(-1) ?? text;
  await pty.waitFor(lastLine.slice(-20));
  pty.write(keys.enter);
}

/**
 * Answers the permission prompt on screen with `key`, once the prompt takes answers (after its guard).
 * nex times the guard from when it noted the question, which a starved nex may do a while after the
 * question reached the screen: a key it judged too early is said on screen ("… ignored: pressed as the
 * question appeared"), and pressed again a guard after that line showed, it counts.
 */
export async function answerPrompt(
  pty: PtyProcess,
  key: string,
  guardMs = answerGuardMs,
): Promise<void> {
  await sleep(guardMs + 100);
  const asked = pty.screen();
  pty.write(key);
  if (!"yanp".includes(key)) return;
  const early = `${key} ignored: pressed as the question appeared`;
  const screen = await pty.waitUntil(
    (now) =>
      now.includes(early) ||
      now.includes(`${key} is unavailable`) ||
      (now !== asked && !now.includes(" yes, once ")),
    `the answer ${key} taken or held back`,
  );
  if (!screen.includes(early)) return;
  await sleep(guardMs + 100);
  pty.write(key);
}

/** Saves the final screen in the test's temp dir and returns it, for the diagnostic and the closing note. */
export function saveScreen(dir: string, name: string, screen: string): string {
  const path = join(dir, `${name}.screen.txt`);
  writeFileSync(path, `${screen}\n`);
  return path;
}

/** Whether the status bar shows the spinner (an in-flight request). */
export function spinnerShown(screen: string): boolean {
  return /waiting for \S+ at /.test(screen);
}

/** Whether the TUI is idle: no spinner, and the prompt invites a new one (the turn has ended). */
export function idleShown(screen: string): boolean {
  return !spinnerShown(screen) && screen.includes("Ask nex");
}

/** Resolves once the chat has been drawn again at `cols` columns (its prompt box that wide) and is quiet. */
export async function waitForRedrawAt(pty: PtyProcess, cols: number): Promise<void> {
  const border = new RegExp(`^╭─{${cols - 2}}╮$`);
  await pty.waitUntil(
    (screen) => screen.split("\n").some((line) => border.test(line)),
    `the prompt box at ${cols} columns`,
  );
  await pty.settle(300);
}

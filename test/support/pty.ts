import { spawnSync } from "node:child_process";
import pty from "@lydell/node-pty";
import xterm from "@xterm/headless";
import { patienceMs, until } from "./until.ts";

/** Options for starting a command in a pseudo-terminal. */
export interface PtyOptions {
  cols?: number;
  rows?: number;
  cwd?: string;
  env?: Record<string, string>;
}

/** A command running in a real pseudo-terminal, its output fed into a real terminal emulator. */
export interface PtyProcess {
  /** The program's process id (to send it signals). */
  pid: number;
  /** The visible rows of the emulated terminal, each right-trimmed, joined with newlines. */
  screen(): string;
  /** Every row the emulator holds, scrollback included. */
  history(): string;
  /** Every byte the program wrote, as received (escape sequences included). */
  output(): string;
  /**
   * The rows the terminal itself wrapped (a line the program wrote wider than the terminal), scrollback
   * included: each such row with the row it continues. A program that measures its lines leaves none.
   */
  terminalWraps(): string[];
  /**
   * Resolves once the screen shows `text` (or matches the regex); rejects with the screen after
   * `timeoutMs` (default: `patienceMs`).
   */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves once `predicate(screen)` holds. */
  waitUntil(
    predicate: (screen: string) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<string>;
  /**
   * Resolves once the program reads keys one at a time (the terminal's line editing off, as Ink sets it
   * once its input hook runs, a moment after its first frame): keys written before are held by the
   * terminal until a newline, and Enter reaches the program as a line feed.
   */
  readyForKeys(): Promise<void>;
  /** Resolves once no output has arrived for `ms`. */
  settle(ms?: number): Promise<void>;
  /** Resizes the terminal, as dragging its window does: the emulator reflows, the program gets SIGWINCH. */
  resize(cols: number, rows: number): void;
  /** Sends keys (raw bytes: "\r" is Enter, "\x03" Ctrl-C, "\x1b" Esc). */
  write(keys: string): void;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number>;
  kill(): void;
  /** Closes the terminal, as closing its window does: the program gets SIGHUP and its input fails. */
  hangUp(): void;
}

/** Byte sequences of keys, as a terminal sends them. */
export const keys = {
  enter: "\r",
  altEnter: "\x1b\r",
  ctrlC: "\x03",
  esc: "\x1b",
  up: "\x1b[A",
  down: "\x1b[B",
  left: "\x1b[D",
  right: "\x1b[C",
  backspace: "\x7f",
  shiftTab: "\x1b[Z",
} as const;

function rows(term: xterm.Terminal, from: number, to: number): string {
  const buffer = term.buffer.active;
  const lines: string[] = [];
  for (let y = from; y < to; y++) {
    lines.push(buffer.getLine(y)?.translateToString(true) ?? "");
  }
  return lines.join("\n");
}

/** Spawns `command args` in a pseudo-terminal of the given size. */
export function spawnPty(command: string, args: string[], options: PtyOptions = {}): PtyProcess {
  const quietMs = 30;
  const cols = options.cols ?? 100;
  const height = options.rows ?? 30;
  const term = new xterm.Terminal({ cols, rows: height, allowProposedApi: true, scrollback: 5000 });
  const child = pty.spawn(command, args, {
    name: "xterm-256color",
    cols,
    rows: height,
    cwd: options.cwd ?? process.cwd(),
    env: options.env ?? {},
  });
  const watchers = new Set<() => void>();
  let pendingWrites = 0;
  let lastData = Date.now();
  let quietTimer: ReturnType<typeof setTimeout> | null = null;
  // Ink draws a frame in several writes (erase, static output, live region): judge a screen only once the
  // output has been quiet for a moment, never mid-frame.
  const checkWhenQuiet = () => {
    if (quietTimer) clearTimeout(quietTimer);
    quietTimer = setTimeout(() => {
      quietTimer = null;
      if (pendingWrites > 0) return;
      for (const watcher of watchers) watcher();
    }, quietMs);
  };
  let raw = "";
  child.onData((data) => {
    raw += data;
    pendingWrites++;
    lastData = Date.now();
    term.write(data, () => {
      pendingWrites--;
      checkWhenQuiet();
    });
  });
  // The emulator answers queries (cursor position, device attributes) as a real terminal would.
  term.onData((data) => {
    child.write(data);
  });
  let exitCode: number | null = null;
  const exited = new Promise<number>((resolve) => {
    child.onExit(({ exitCode: code }) => {
      exitCode = code;
      const settle = () => (pendingWrites === 0 ? resolve(code) : setTimeout(settle, 10));
      settle();
      checkWhenQuiet();
    });
  });

  const screen = () => {
    const buffer = term.buffer.active;
    return rows(term, buffer.viewportY, buffer.viewportY + term.rows);
  };

  const waitUntil = (predicate: (s: string) => boolean, what: string, timeoutMs = patienceMs) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        const now = screen();
        if (!predicate(now)) return false;
        cleanup();
        resolve(now);
        return true;
      };
      const timer = setTimeout(() => {
        cleanup();
        const state = exitCode === null ? "still running" : `exited with ${exitCode}`;
        reject(
          new Error(
            `timed out after ${timeoutMs} ms waiting for ${what} (process ${state}); screen:\n${screen()}`,
          ),
        );
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        watchers.delete(check);
      };
      watchers.add(check);
      if (pendingWrites === 0 && Date.now() - lastData >= quietMs) check();
      else checkWhenQuiet();
    });

  return {
    pid: child.pid,
    screen,
    history: () => rows(term, 0, term.buffer.active.length),
    output: () => raw,
    terminalWraps: () => {
      const buffer = term.buffer.active;
      const found: string[] = [];
      for (let y = 1; y < buffer.length; y++) {
        if (!buffer.getLine(y)?.isWrapped) continue;
        found.push(`${rows(term, y - 1, y)}⏎${rows(term, y, y + 1)}`);
      }
      return found;
    },
    waitFor: (text, timeoutMs) =>
      waitUntil(
        (s) => (typeof text === "string" ? s.includes(text) : text.test(s)),
        typeof text === "string" ? JSON.stringify(text) : String(text),
        timeoutMs,
      ),
    waitUntil,
    readyForKeys: () => {
      // The terminal's own settings, read from its other side (the program's end of it).
      const device = (child as unknown as { ptsName: string }).ptsName;
      const raw = () =>
        /(^|\s)-icanon(\s|$)/.test(
          spawnSync("stty", ["-F", device, "-a"]).stdout?.toString() ?? "",
        );
      return until(raw, `the program to read keys one at a time (${device} out of line mode)`);
    },
    settle: async (ms = 150) => {
      while (pendingWrites > 0 || Date.now() - lastData < ms) {
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(10, ms - (Date.now() - lastData))),
        );
      }
    },
    write: (data) => child.write(data),
    resize: (cols, rows) => {
      term.resize(cols, rows);
      child.resize(cols, rows);
    },
    exited,
    kill: () => {
      if (exitCode === null) child.kill();
    },
    hangUp: () => (child as unknown as { destroy(): void }).destroy(),
  };
}

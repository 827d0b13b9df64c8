import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { signalGroup, trackGroup, untrackGroup, watchExit } from "./process-groups.ts";

/** How to run one stdio server. */
export interface StdioLaunch {
  command: string;
  args: string[];
  cwd: string;
  /** The whole environment the server gets (nothing else of nex's is inherited). */
  env: Record<string, string>;
  /** Where the server's stderr goes (appended, 0600); never the screen. */
  stderrLog: string | null;
  /** Replaces secrets in what goes to the log. */
  redact?: (text: string) => string;
  /** Longest message line accepted (64 MiB); a longer one ends the connection. */
  maxMessageBytes?: number;
  /** Wait between SIGTERM and SIGKILL of the group on close (2 s). */
  killGraceMs?: number;
}

const STDERR_TAIL = 2_000;
// A server that floods stderr must not fill the disk.
const STDERR_LOG_LIMIT = 16 * 1024 * 1024;

/**
 * The SDK's Transport over a child process in its own process group: lines of JSON-RPC on stdout,
 * anything else on stdout counted as garbage and skipped (it never ends the session), stderr kept
 * in a log file with its tail at hand, and the whole group stopped on close.
 */
export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;
  private child: ChildProcess | null = null;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private tail = "";
  private logged = 0;
  private closed = false;
  /** Lines on stdout that were not JSON-RPC messages, and the first of them. */
  garbage = { lines: 0, sample: "" };
  /** How the process ended, once it has. */
  exit: { code: number | null; signal: string | null } | null = null;

  private readonly launch: StdioLaunch;

  constructor(launch: StdioLaunch) {
    this.launch = launch;
  }

  /** The last lines the server wrote to stderr. */
  stderrTail(): string {
    return this.tail.trim();
  }

  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      watchExit();
      const child = spawn(this.launch.command, this.launch.args, {
        cwd: this.launch.cwd,
        env: this.launch.env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        windowsHide: true,
      });
      this.child = child;
      // Tracked at once, not at the `spawn` event: a signal's handler runs after this line.
      if (child.pid) trackGroup(child.pid);
      child.once("error", (error) => {
        this.closed = true;
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => resolve());
      child.once("exit", (code, signal) => {
        this.exit = { code, signal };
      });
      child.once("close", () => {
        if (child.pid) untrackGroup(child.pid);
        this.finish();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.read(chunk));
      child.stderr?.on("data", (chunk: Buffer) => this.keepStderr(chunk));
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closed || stdin.destroyed) throw new Error("the server is not running");
    const line = `${JSON.stringify(message)}\n`;
    if (!stdin.write(line)) {
      await new Promise<void>((resolve, reject) => {
        const onDrain = () => {
          stdin.off("close", onClose);
          resolve();
        };
        const onClose = () => {
          stdin.off("drain", onDrain);
          reject(new Error("the server closed its input"));
        };
        stdin.once("drain", onDrain);
        stdin.once("close", onClose);
      });
    }
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || this.closed) return;
    const pid = child.pid;
    const ended = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
    });
    child.stdin?.end();
    if (pid) signalGroup(pid, "SIGTERM");
    const grace = this.launch.killGraceMs ?? 2_000;
    const timer = new Promise<"late">((resolve) =>
      setTimeout(() => resolve("late"), grace).unref(),
    );
    if ((await Promise.race([ended, timer])) === "late" && pid) signalGroup(pid, "SIGKILL");
    // Children of the server that left the group's leader behind go with it too.
    if (pid) {
      signalGroup(pid, "SIGKILL");
      untrackGroup(pid);
    }
    this.finish();
  }

  private finish(): void {
    if (this.closed && !this.child) return;
    this.closed = true;
    this.child = null;
    this.chunks = [];
    this.buffered = 0;
    this.onclose?.();
  }

  private read(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.chunks.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.chunks).toString("utf8").replace(/\r$/, "");
      this.chunks = [];
      this.buffered = 0;
      start = newline + 1;
      this.deliver(line);
    }
    if (start < chunk.length) {
      this.chunks.push(chunk.subarray(start));
      this.buffered += chunk.length - start;
      const limit = this.launch.maxMessageBytes ?? 64 * 1024 * 1024;
      if (this.buffered > limit) {
        this.onerror?.(
          new Error(
            `the server sent a message larger than ${Math.round(limit / 1024 / 1024)} MiB; the connection was closed`,
          ),
        );
        void this.close();
      }
    }
  }

  private deliver(line: string): void {
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch {
      this.garbage.lines += 1;
      if (!this.garbage.sample) this.garbage.sample = line.slice(0, 120);
      return;
    }
    this.onmessage?.(message);
  }

  private keepStderr(chunk: Buffer): void {
    const text = chunk.toString("utf8");
    this.tail = (this.tail + (this.launch.redact?.(text) ?? text)).slice(-STDERR_TAIL);
    if (!this.launch.stderrLog || this.logged > STDERR_LOG_LIMIT) return;
    this.logged += chunk.length;
    try {
      if (this.logged > STDERR_LOG_LIMIT) {
        appendFileSync(
          this.launch.stderrLog,
          `\n[nex: the server wrote more than ${STDERR_LOG_LIMIT / 1024 / 1024} MiB to stderr; the rest is not kept]\n`,
        );
        return;
      }
      const redact = this.launch.redact;
      appendFileSync(this.launch.stderrLog, redact ? redact(text) : text, { mode: 0o600 });
    } catch {
      // A log that cannot be written loses the log, not the server.
    }
  }
}

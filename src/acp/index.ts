// `nex acp`: the Agent Client Protocol over stdin/stdout. Stdout carries only protocol messages.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import { listSessionsFor, openSession } from "../runtime/assembly/index.ts";
import type { ConfigFlags } from "../runtime/config/index.ts";
import {
  boundedLines,
  inputLineCap,
  type OnTooLong,
  onStopSignals,
  SIGNAL_EXIT,
  type StopSignal,
} from "../runtime/session/index.ts";
import { createAcpAgent } from "./agent.ts";
import { claimStdout } from "./stdout.ts";

/** Serves one client until it closes stdin; returns the exit code. */
export async function runAcp(
  flags: ConfigFlags,
  environment: Record<string, string | undefined>,
  cwd: string,
): Promise<number> {
  const protocolOut = claimStdout();
  // Taken once: concealing the key in the process's environment block changes what `process.env` shows.
  const env = { ...environment };
  const log = (line: string) => process.stderr.write(`nex acp: ${line.replace(/\n+$/, "")}\n`);
  if (process.stdin.isTTY)
    log(
      "waiting for an editor's Agent Client Protocol messages on stdin; an editor starts `nex acp` itself (see the README). Ctrl-C quits.",
    );
  const { app, closeAll } = createAcpAgent({
    flags,
    version: packageVersion(),
    log,
    list: (sessionFlags) => listSessionsFor(sessionFlags, env, cwd),
    open: (sessionFlags, options) =>
      openSession(sessionFlags, env, cwd, { ...options, concealEnvironment: true }),
  });
  // The SDK's reader holds a line until its newline: lines reach it through the bounded reader,
  // which drops a line over the cap as it arrives and reports it.
  const stream = ndJsonStream(
    protocolOut,
    boundedStream(process.stdin, (number, bytes) =>
      log(
        `message ${number} is longer than ${inputLineCap()} (${bytes} bytes) and was skipped; send each message under ${inputLineCap()}`,
      ),
    ),
  );
  const connection = app.connect(stream);
  // The editor stops its agent with a signal or by closing stdin: the running turn stops, its
  // commands are ended and every journal is synced first. A second signal exits at once.
  let stoppedBy: StopSignal | null = null;
  const stopWatching = onStopSignals((signal, count) => {
    if (count > 1) process.exit(SIGNAL_EXIT[stoppedBy ?? signal]);
    stoppedBy = signal;
    log(`${signal}: stopping the sessions`);
    connection.close();
  });
  try {
    await connection.closed.catch((error: unknown) =>
      log(`connection closed: ${(error as Error).message}`),
    );
    await closeAll();
  } finally {
    stopWatching();
  }
  return stoppedBy ? SIGNAL_EXIT[stoppedBy] : 0;
}

/** The lines of `input`, each within the cap, as the bytes of newline-ended lines. */
function boundedStream(input: Readable, onTooLong: OnTooLong): ReadableStream<Uint8Array> {
  const lines = boundedLines(input, onTooLong);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(Buffer.from(`${next.value.text}\n`, "utf8"));
    },
    // The reader waits on stdin: ending stdin ends it (a pending read would hold `return()` back).
    cancel() {
      input.destroy();
    },
  });
}

function packageVersion(): string {
  try {
    const text = readFileSync(join(import.meta.dirname, "..", "..", "package.json"), "utf8");
    return String((JSON.parse(text) as { version?: unknown }).version ?? "unknown");
  } catch {
    return "unknown";
  }
}

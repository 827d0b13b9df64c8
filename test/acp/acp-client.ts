// Drives the real `nex acp` as a child process with the official ACP SDK's client side.
import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientContext,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";

const nexBin = resolve(import.meta.dirname, "..", "..", "bin", "nex.js");

export interface AcpRun {
  child: ChildProcess;
  agent: ClientContext;
  /** Every `session/update` received, in order. */
  updates: SessionNotification[];
  /** Every path the agent asked the editor for (fs/read_text_file). */
  reads: string[];
  /** Every permission question received, in order. */
  permissions: RequestPermissionRequest[];
  stderr: () => string;
  /** Resolves when an update matching `test` has arrived (already or later). */
  waitForUpdate(test: (update: SessionNotification) => boolean): Promise<SessionNotification>;
  /** Waits for the process to exit (stdin left open); returns its exit code. */
  exited(): Promise<number | null>;
  /** Closes stdin and waits for the process to exit; returns its exit code. */
  close(): Promise<number | null>;
}

export interface AcpOptions {
  cwd: string;
  env: Record<string, string>;
  args: string[];
  /** The editor's unsaved text of a file (fs/read_text_file); null: the request fails. */
  buffer?: (path: string) => string | null;
  /** How the "editor" answers a permission question; default: reject once. */
  answer?: (
    request: RequestPermissionRequest,
  ) => RequestPermissionResponse | Promise<RequestPermissionResponse>;
}

export function startAcp(options: AcpOptions): AcpRun {
  const child = spawn(process.execPath, [nexBin, "acp", ...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((done) => child.on("close", (code) => done(code)));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const reads: string[] = [];
  const waiters: {
    test: (u: SessionNotification) => boolean;
    done: (u: SessionNotification) => void;
  }[] = [];
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
      for (const waiter of [...waiters]) {
        if (waiter.test(params)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.done(params);
        }
      }
    })
    .onRequest("fs/read_text_file", ({ params }) => {
      reads.push(params.path);
      const text = options.buffer?.(params.path);
      if (text === null || text === undefined) throw new Error(`no buffer for ${params.path}`);
      return { content: text };
    })
    .onRequest("session/request_permission", async ({ params }) => {
      permissions.push(params);
      return options.answer
        ? options.answer(params)
        : { outcome: { outcome: "selected", optionId: "reject_once" } };
    });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  return {
    child,
    agent: connection.agent,
    updates,
    permissions,
    reads,
    stderr: () => stderr,
    waitForUpdate(test) {
      const found = updates.find(test);
      if (found) return Promise.resolve(found);
      return new Promise((done) => waiters.push({ test, done }));
    },
    exited: () => exited,
    async close() {
      child.stdin?.end();
      return exited;
    },
  };
}

/** The text of the agent's message chunks among `updates`, joined. */
export function agentText(
  updates: readonly SessionNotification[],
  kind = "agent_message_chunk",
): string {
  return updates
    .map((n) => n.update)
    .filter((u) => u.sessionUpdate === kind)
    .map((u) =>
      "content" in u && !Array.isArray(u.content) && u.content?.type === "text"
        ? u.content.text
        : "",
    )
    .join("");
}

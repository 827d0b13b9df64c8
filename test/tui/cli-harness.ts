import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { keys, type PtyProcess, spawnPty } from "../support/pty.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import {
  json,
  type LoggedRequest,
  type Script,
  type StubEndpoint,
  startStubEndpoint,
  status,
} from "../support/stub-endpoint.ts";
import { until } from "../support/until.ts";

const root = resolve(import.meta.dirname, "..", "..");
const nexBin = join(root, "bin", "nex.js");

/** The real `nex chat` in a pseudo-terminal against a stub endpoint on 127.0.0.1. */
export interface NexTui {
  pty: PtyProcess;
  stub: StubEndpoint;
  workspace: string;
  dir: string;
  /** Chat-completion requests the stub received (other paths, such as window discovery, excluded). */
  chatRequests(): LoggedRequest[];
  close(): Promise<void>;
}

const chatPath = /\/chat\/completions$/;

/**
 * Starts a stub whose chat requests are answered by `scripts` in order (then by `after`, a 400 by
 * default, so an unexpected extra request shows up in the log instead of hanging), and `nex chat`.
 */
export async function startNexTui(
  scripts: Script[],
  options: {
    after?: Script;
    args?: string[];
    cols?: number;
    rows?: number;
    files?: Record<string, string>;
    /** Runs before nex starts, e.g. to leave an earlier session's journal in the data directory. */
    seed?: (paths: { workspace: string; dataDir: string }) => Promise<void>;
    /** The user's config file (`$XDG_CONFIG_HOME/nex/config.json`). */
    config?: Record<string, unknown>;
    /** More environment for nex (e.g. TERM_PROGRAM). */
    env?: Record<string, string>;
    /** The model ids the stub's `GET /v1/models` lists (absent: that path is a 404). */
    models?: string[];
    /** Keys typed the moment nex is launched, while the terminal is still in line mode. */
    typeahead?: string;
  } = {},
): Promise<NexTui> {
  const queue = [...scripts];
  const after =
    options.after ??
    status(400, { body: { error: { message: "stub: no more scripted replies" } } });
  const stub = await startStubEndpoint({
    handler: (request) => {
      if (!chatPath.test(request.path)) {
        return status(404, { body: { error: { message: `stub: nothing at ${request.path}` } } });
      }
      return queue.shift() ?? after;
    },
  });
  if (options.models)
    stub.setRoute(
      "GET /v1/models",
      json({ object: "list", data: options.models.map((id) => ({ id, object: "model" })) }),
    );
  const dir = scratchDir("nex-tui-cli-");
  const workspace = join(dir, "ws");
  mkdirSync(workspace);
  for (const [name, content] of Object.entries(options.files ?? {})) {
    writeFileSync(join(workspace, name), content);
  }
  await options.seed?.({ workspace, dataDir: join(dir, "data", "nex") });
  if (options.config) {
    mkdirSync(join(dir, "config", "nex"), { recursive: true });
    writeFileSync(join(dir, "config", "nex", "config.json"), JSON.stringify(options.config));
  }
  const args = [
    nexBin,
    "chat",
    "--base-url",
    `${stub.url}/v1`,
    "--model",
    "m",
    ...(options.args ?? []),
  ];
  const pty = spawnPty(process.execPath, args, {
    cols: options.cols ?? 100,
    rows: options.rows ?? 30,
    cwd: workspace,
    env: {
      PATH: process.env.PATH ?? "",
      TERM: "xterm-256color",
      HOME: dir,
      OPENAI_API_KEY: "test",
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
      ...options.env,
    },
  });
  if (options.typeahead !== undefined) pty.write(options.typeahead);
  try {
    await pty.waitFor("/help for commands");
    // Ink turns on raw mode just after its first frame; keys sent before that are cooked by the tty.
    await pty.readyForKeys();
  } catch (error) {
    pty.kill();
    await stub.close();
    throw error;
  }
  return {
    pty,
    stub,
    workspace,
    dir,
    chatRequests: () => stub.requests.filter((r) => chatPath.test(r.path)),
    close: async () => {
      pty.kill();
      await stub.close();
    },
  };
}

/**
 * The chat requests nex sent before the next prompt's: proof that nothing more was sent for the turns
 * so far that does not rest on waiting a while. Once the chat is idle, a new prompt is typed and its
 * request awaited; anything nex still meant to send for an earlier turn came before it.
 */
export async function requestsBeforeNextPrompt(nex: NexTui): Promise<LoggedRequest[]> {
  const marker = "one more question";
  await nex.pty.waitFor("Ask nex");
  nex.pty.write(`${marker}${keys.enter}`);
  const at = () => nex.chatRequests().findIndex((request) => request.rawBody.includes(marker));
  await until(() => at() >= 0, "the next prompt's request");
  return nex.chatRequests().slice(0, at());
}

// A scriptable HTTP endpoint on 127.0.0.1 speaking the OpenAI (Chat Completions and Responses) and
// Anthropic wire formats: the stub endpoint of the tests, and the misbehaving endpoint of `nex demo`.
// Each request is answered by, in order: a route (fixed per method+path), the next queued script,
// the handler function (these two for model requests only), or else a 404 that names the request (404 so that
// a client never retries it).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Script, StreamPart } from "./scripts.ts";

export * from "./responses-scripts.ts";
export * from "./scripts.ts";

/** A request as the stub received it: headers exactly as sent (auth included), body parsed when JSON. */
export interface LoggedRequest {
  index: number;
  method: string;
  path: string;
  headers: Record<string, string>;
  rawBody: string;
  body: unknown;
  /** `Date.now()` when the request's body had been read. */
  receivedAt: number;
  /** A streamed answer: the parts written, and whether the client closed the connection before the last one. */
  stream?: { partsWritten: number; clientLeftEarly: boolean };
}

/** Chooses a script for a request; `index` counts every request the stub received, from 0. */
export type StubHandler = (request: LoggedRequest, index: number) => Script | Promise<Script>;

/** A running stub endpoint. */
export interface StubEndpoint {
  /** Base URL without trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Every request received, in order (control requests under `/__stub/` excluded). */
  requests: LoggedRequest[];
  /** Adds scripts to the queue; each answers one request. */
  enqueue(...scripts: Script[]): void;
  /** Fallback for requests when the queue is empty. */
  setHandler(handler: StubHandler | null): void;
  /** Answers every request to `"METHOD /path"` with this script (e.g. `"GET /props"`), ahead of the queue. */
  setRoute(key: string, script: Script | null): void;
  /** Requests whose path is `path` (any method). */
  requestsTo(path: string): LoggedRequest[];
  close(): Promise<void>;
}

/** Options for `startStubEndpoint`. */
export interface StubOptions {
  scripts?: Script[];
  routes?: Record<string, Script>;
  handler?: StubHandler;
  /** Called with each logged request (the child-process stub writes them to a file). */
  onRequest?: (request: LoggedRequest) => void;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startStubEndpoint(options: StubOptions = {}): Promise<StubEndpoint> {
  const queue: Script[] = [...(options.scripts ?? [])];
  const routes = new Map<string, Script>(Object.entries(options.routes ?? {}));
  let handler: StubHandler | null = options.handler ?? null;
  const requests: LoggedRequest[] = [];

  const server = createServer((req, res) => {
    void answer(req, res).catch(() => res.destroy());
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (path.startsWith("/__stub/")) {
      control(req.method ?? "GET", path, rawBody, res);
      return;
    }
    const logged: LoggedRequest = {
      index: requests.length,
      method: req.method ?? "GET",
      path,
      headers: flattenHeaders(req),
      rawBody,
      body: parseJson(rawBody),
      receivedAt: Date.now(),
    };
    requests.push(logged);
    options.onRequest?.(logged);
    // Queued scripts and the handler answer model requests only, so that a client's discovery
    // probes (`/v1/models`, `/props`, `/api/show`) never consume a script meant for a turn.
    const forModel = /\/(chat\/completions|messages|responses)$/.test(path);
    const script =
      routes.get(`${logged.method} ${path}`) ??
      (forModel ? queue.shift() : undefined) ??
      (handler && forModel ? await handler(logged, logged.index) : null) ??
      unscripted(logged);
    await play(script, req, res, logged);
  }

  function control(method: string, path: string, rawBody: string, res: ServerResponse): void {
    if (method === "GET" && path === "/__stub/requests") {
      sendJson(res, 200, requests);
      return;
    }
    if (method === "POST" && path === "/__stub/enqueue") {
      const scripts = parseJson(rawBody);
      if (Array.isArray(scripts)) queue.push(...(scripts as Script[]));
      sendJson(res, 200, { queued: queue.length });
      return;
    }
    sendJson(res, 404, { error: `unknown stub control ${method} ${path}` });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...scripts) => {
      queue.push(...scripts);
    },
    setHandler: (next) => {
      handler = next;
    },
    setRoute: (key, script) => {
      if (script) routes.set(key, script);
      else routes.delete(key);
    },
    requestsTo: (path) => requests.filter((request) => request.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function unscripted(request: LoggedRequest): Script {
  return {
    type: "reply",
    status: 404,
    body: { error: { message: `stub endpoint: no script for ${request.method} ${request.path}` } },
  };
}

async function play(
  script: Script,
  req: IncomingMessage,
  res: ServerResponse,
  logged: LoggedRequest,
): Promise<void> {
  // The client may leave at any time (abort, timeout); stop writing then.
  let gone = false;
  res.on("close", () => {
    gone = true;
  });
  switch (script.type) {
    case "destroy":
      req.socket.destroy();
      return;
    case "hang":
      return;
    case "reply": {
      if (script.delayMs) await sleep(script.delayMs);
      if (gone) return;
      const isText = typeof script.body === "string";
      const body =
        script.body === undefined
          ? ""
          : isText
            ? (script.body as string)
            : JSON.stringify(script.body);
      const headers = {
        "content-type": isText ? "text/plain; charset=utf-8" : "application/json",
        ...(script.headers ?? {}),
      };
      res.writeHead(script.status, headers);
      res.end(body);
      return;
    }
    case "stream": {
      res.writeHead(script.status ?? 200, {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        ...(script.headers ?? {}),
      });
      res.flushHeaders();
      let budget = script.cutBodyAt ?? Number.POSITIVE_INFINITY;
      const stream = { partsWritten: 0, clientLeftEarly: false };
      logged.stream = stream;
      for (const part of script.parts) {
        const { data, delayMs } = normalise(part, script.delayMs ?? 0);
        if (delayMs > 0) await sleep(delayMs);
        if (gone) {
          stream.clientLeftEarly = true;
          return;
        }
        stream.partsWritten += 1;
        const bytes = Buffer.from(data, "utf8");
        if (bytes.length >= budget) {
          if (budget > 0) res.write(bytes.subarray(0, budget));
          budget = 0;
          break;
        }
        budget -= bytes.length;
        res.write(bytes);
      }
      if (gone) return;
      const end = script.end ?? "close";
      // Let written bytes reach the client before a reset, so "dropped mid-stream" is what it sees.
      if (end === "destroy") {
        await sleep(5);
        req.socket.destroy();
        return;
      }
      if (end === "close") res.end();
      return;
    }
  }
}

function normalise(part: StreamPart, defaultDelay: number): { data: string; delayMs: number } {
  if (typeof part === "string") return { data: part, delayMs: defaultDelay };
  return { data: part.data, delayMs: part.delayMs ?? defaultDelay };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

function parseJson(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

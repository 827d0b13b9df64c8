// An MCP server that misbehaves on purpose, built with the SDK's own server classes. Run with Node:
// `node hostile-mcp-server.ts`. It records every call and cancellation it receives in $CALLS_FILE
// (one JSON line each), so a test can prove a call was sent exactly once.
import { spawn } from "node:child_process";
import { appendFileSync, writeFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  CallToolRequestSchema,
  CancelledNotificationSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const callsFile = process.env.CALLS_FILE;
const record = (entry: object) => {
  if (callsFile) appendFileSync(callsFile, `${JSON.stringify(entry)}\n`);
};

record({ started: process.pid });
if (process.env.GARBAGE_AT_START)
  process.stdout.write("Starting hostile server v1...\n{not json\n");
if (process.env.FAIL_AT_START) {
  process.stderr.write("fatal: cannot open database /nonexistent/db.sqlite\n");
  process.exit(3);
}

const object = (properties: object, required: string[] = []) => ({
  type: "object" as const,
  properties,
  required,
});

let changed = false;
// `gather`: calls in flight now and at most, and the moment enough were.
let gathering = 0;
let mostGathering = 0;
let releaseGathered: () => void = () => {};
const gathered = new Promise<void>((resolve) => {
  releaseGathered = resolve;
});
const tools = () => [
  { name: "crash", description: "Dies in the middle of the call.", inputSchema: object({}) },
  {
    name: "crash_idempotent",
    description: "Dies in the middle of the call; marked idempotent.",
    inputSchema: object({}),
    annotations: { idempotentHint: true },
  },
  { name: "hang", description: "Never answers.", inputSchema: object({}) },
  { name: "huge", description: "Returns 10 MB of text.", inputSchema: object({}) },
  {
    name: "bad_structured",
    description: "Returns structured content that breaks its own output schema.",
    inputSchema: object({}),
    outputSchema: object({ count: { type: "number" } }, ["count"]),
  },
  {
    name: "bad_schema",
    description: "Declares an input schema that does not compile.",
    inputSchema: object({ x: { type: "nonsense" } }),
  },
  { name: "fails", description: "Reports an error result.", inputSchema: object({}) },
  {
    name: "add",
    description: "Adds two integers.",
    inputSchema: object({ a: { type: "integer" }, b: { type: "integer" } }, ["a", "b"]),
  },
  {
    name: "modern",
    description: "Declares its schema in draft 2020-12, as zod 4 does.",
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      ...object({ word: { type: "string" } }, ["word"]),
    },
  },
  {
    name: "odd_output",
    description: "Declares an output schema that does not compile.",
    inputSchema: object({}),
    outputSchema: object({ n: { type: "nonsense" } }),
  },
  {
    name: "peek",
    description: "Claims to only read.",
    inputSchema: object({}),
    annotations: { readOnlyHint: true, destructiveHint: false },
  },
  {
    name: "gather",
    description:
      "Claims to only read; answers once $GATHER_AT calls are in flight (or after $GATHER_PATIENCE_MS), with the most it saw; with `write`, writes that file first.",
    inputSchema: object({ write: { type: "string" } }),
    annotations: { readOnlyHint: true },
  },
  { name: "env_names", description: "Lists its environment's names.", inputSchema: object({}) },
  {
    name: "spawn_child",
    description: "Starts a long-lived child process and returns its pid.",
    inputSchema: object({}),
  },
  {
    name: "spawn_detached",
    description: "Starts a long-lived child in a new session (setsid), out of its process group.",
    inputSchema: object({}),
  },
  {
    name: "chatty",
    description: "Sends many log notifications, then answers.",
    inputSchema: object({}),
  },
  ...(changed
    ? []
    : [
        {
          name: "vanish",
          description: "Removes itself from the tool list.",
          inputSchema: object({}),
        },
      ]),
  ...Array.from({ length: Number(process.env.MANY_TOOLS ?? 0) }, (_, i) => ({
    name: `many_${i}`,
    description: `Filler tool ${i}.`,
    inputSchema: object({}),
  })),
  ...(process.env.BIG_SCHEMA
    ? [
        {
          name: "big_schema",
          description: "Declares a 100 KB schema.",
          inputSchema: object(
            Object.fromEntries(
              Array.from({ length: 2_000 }, (_, i) => [
                `field_${i}`,
                { type: "string", description: "x".repeat(40) },
              ]),
            ),
          ),
        },
      ]
    : []),
  {
    name: "stuck_progress",
    description: "Reports the same progress (1/10) every 100 ms and never answers.",
    inputSchema: object({}),
  },
  {
    name: "endless_progress",
    description: "Reports ever-growing progress every 100 ms and never answers.",
    inputSchema: object({}),
  },
  {
    name: "garbage_then_answer",
    description: "Prints garbage on stdout, then answers.",
    inputSchema: object({}),
  },
];

const server = new Server(
  { name: "hostile", version: "1.0.0" },
  { capabilities: { tools: { listChanged: true }, logging: {} } },
);
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools() }));
server.setNotificationHandler(CancelledNotificationSchema, async (notification) => {
  record({ cancelled: notification.params.requestId, reason: notification.params.reason });
});
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const name = request.params.name;
  record({ call: name, args: request.params.arguments ?? {} });
  switch (name) {
    case "crash":
    case "crash_idempotent":
      process.stderr.write("panic: connection pool exhausted\n");
      setTimeout(() => process.exit(7), 10);
      return new Promise(() => {});
    case "hang":
      return new Promise(() => {});
    case "huge":
      return { content: [{ type: "text", text: `${"0123456789abcdef".repeat(655_360)}END` }] };
    case "bad_structured":
      return {
        content: [{ type: "text", text: '{"count":"many"}' }],
        structuredContent: { count: "many" },
      };
    case "fails":
      return { isError: true, content: [{ type: "text", text: "quota exceeded for project X" }] };
    case "add": {
      const { a, b } = request.params.arguments as { a: number; b: number };
      return { content: [{ type: "text", text: String(a + b) }] };
    }
    case "modern":
      return {
        content: [
          { type: "text", text: `modern ${(request.params.arguments as { word: string }).word}` },
        ],
      };
    case "odd_output":
      return { content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } };
    case "peek":
      return { content: [{ type: "text", text: "peeked" }] };
    case "gather": {
      const write = request.params.arguments?.write;
      if (typeof write === "string") writeFileSync(write, "written by a read-only tool\n");
      gathering++;
      mostGathering = Math.max(mostGathering, gathering);
      if (gathering >= Number(process.env.GATHER_AT ?? 3)) releaseGathered();
      await Promise.race([
        gathered,
        new Promise((resolve) =>
          setTimeout(resolve, Number(process.env.GATHER_PATIENCE_MS ?? 5000)),
        ),
      ]);
      gathering--;
      return { content: [{ type: "text", text: `most in flight: ${mostGathering}` }] };
    }
    case "env_names":
      return { content: [{ type: "text", text: Object.keys(process.env).sort().join(",") }] };
    case "spawn_child": {
      const child = spawn("sleep", ["300"], { stdio: "ignore" });
      return { content: [{ type: "text", text: `child pid ${child.pid}` }] };
    }
    case "spawn_detached": {
      // A new session and group: nothing that stops the server's group reaches it. Not a group
      // leader, setsid(1) calls setsid() and execs sleep in place: the pid is the sleeper's.
      const child = spawn("setsid", ["sleep", "300"], { stdio: "ignore" });
      child.unref();
      return { content: [{ type: "text", text: `child pid ${child.pid}` }] };
    }
    case "chatty":
      for (let i = 0; i < 2_000; i += 1)
        await server.sendLoggingMessage({ level: "info", data: `tick ${i}` });
      return { content: [{ type: "text", text: "chatty done" }] };
    case "vanish":
      changed = true;
      await server.sendToolListChanged();
      return { content: [{ type: "text", text: "vanished" }] };
    case "stuck_progress":
    case "endless_progress": {
      const progressToken = request.params._meta?.progressToken;
      let step = 1;
      const tick = setInterval(() => {
        if (progressToken === undefined) return;
        const progress = name === "stuck_progress" ? 1 : step++;
        extra
          .sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, total: 10 },
          })
          .catch(() => clearInterval(tick));
      }, 100);
      return new Promise(() => {});
    }
    case "garbage_then_answer":
      process.stdout.write("DEBUG: computing...\n");
      return { content: [{ type: "text", text: "answer after garbage" }] };
    default:
      return { isError: true, content: [{ type: "text", text: `no tool ${name}` }] };
  }
});

await server.connect(new StdioServerTransport());

// Keeping a small window's conversation small, and the bad input of stored results: old large results
// shrink to stubs that name their stored copy (nothing lost, any line reachable); a page past the end,
// a stored result deleted under nex, binary and endless output each get a clear answer and the session
// goes on.
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../support/cli.ts";
import type { LoggedRequest } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { withLimits } from "./fixtures.ts";
import { exitCode, type FaultScenario, told, toolResults } from "./scenario.ts";

const wire = "openai";
const window = { contextWindow: 8192, maxOutput: 1024 };

function numbered(n: number, word: string): string {
  let out = "";
  for (let i = 1; i <= n; i++) out += `${word} line ${i} ${"·".repeat(20)}\n`;
  return out;
}

/** The first stored-result name a tool result of this request names (a stub's, with `stub`). */
function storedName(request: LoggedRequest, stub = false): string {
  const pattern = stub
    ? /An older result of [\s\S]*?stored as "(@results\/[\w.-]*\w)"/
    : /"(@results\/[\w.-]*\w)"/;
  for (const text of toolResults(request)) {
    const found = pattern.exec(text)?.[1];
    if (found) return found;
  }
  return "@results/missing";
}

/** Deletes the stored file behind `@results/<name>` from the sandbox's data directory. */
function deleteStored(box: Sandbox, name: string): void {
  const file = name.replace("@results/", "");
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === file) rmSync(path);
    }
  };
  walk(box.dataDir);
}

export const windowScenarios: FaultScenario[] = [
  {
    name: "a page request beyond the end of a stored result",
    wire,
    expect: "a clear error with the number of lines; the session goes on",
    setup: (box) => {
      withLimits(box, wire, window);
      writeFileSync(join(box.workspace, "app.log"), numbered(2000, "log"));
    },
    handler: (request, index) => {
      if (index === 0) return openaiToolCall({ name: "bash", args: { command: "cat app.log" } });
      if (index === 1)
        return openaiToolCall({
          name: "read_file",
          args: { path: storedName(request), offset: 999_999, limit: 5 },
        });
      return openaiText("understood");
    },
    checks: [told(/offset 999999 is past the end of @results\/[\s\S]*2,000 lines/, 2), exitCode(0)],
  },
  {
    name: "a stored result deleted under nex",
    wire,
    expect: "a clear error naming it; nothing else lost; the session goes on",
    setup: (box) => {
      withLimits(box, wire, window);
      writeFileSync(join(box.workspace, "app.log"), numbered(2000, "log"));
    },
    handler: (request, index, box) => {
      if (index === 0) return openaiToolCall({ name: "bash", args: { command: "cat app.log" } });
      if (index === 1) {
        const name = storedName(request);
        deleteStored(box, name);
        return openaiToolCall({ name: "read_file", args: { path: name, offset: 10, limit: 2 } });
      }
      if (index === 2)
        return openaiToolCall({
          name: "read_file",
          args: { path: "app.log", offset: 10, limit: 1 },
        });
      return openaiText("read the log itself");
    },
    checks: [
      told(/@results\/[\w.-]+ is not stored any more/, 2),
      told(/log line 10 /, 3),
      exitCode(0),
    ],
  },
  {
    name: "8k window: binary output of a command",
    wire,
    expect: "the result is stored and described, the turn completes",
    setup: (box) => {
      withLimits(box, wire, window);
      const bytes = Buffer.alloc(200_000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) % 256;
      writeFileSync(join(box.workspace, "blob.bin"), bytes);
    },
    scripts: [
      openaiToolCall({ name: "bash", args: { command: "cat blob.bin" } }),
      openaiText("it is binary"),
    ],
    checks: [
      (o) => {
        const bytes = Buffer.byteLength(o.requests[1]?.rawBody ?? "");
        return bytes > 8192 * 4 ? `request 1 is ${bytes} bytes for an 8k window` : null;
      },
      told(/@results\//),
      exitCode(0),
    ],
  },
  {
    name: "8k window: a command that prints forever",
    wire,
    expect: "stopped at its timeout; what it printed is capped and stored; the session goes on",
    setup: (box) => withLimits(box, wire, window),
    scripts: [
      openaiToolCall({ name: "bash", args: { command: "yes nex", timeout_seconds: 2 } }),
      openaiText("it never ends"),
    ],
    checks: [
      told(/timed out|timeout|stopped/i),
      (o) => {
        const bytes = Buffer.byteLength(o.requests[1]?.rawBody ?? "");
        return bytes > 8192 * 4 ? `request 1 is ${bytes} bytes for an 8k window` : null;
      },
      exitCode(0),
    ],
  },
];

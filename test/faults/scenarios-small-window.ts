// Small windows (8k, as Ollama and LM Studio set-ups often have): one large result must not end the
// turn, and nothing a tool returned is lost: what does not fit is stored and the model pages it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { STUB_MARK } from "../../src/runtime/context/result-stubs.ts";
import type { LoggedRequest } from "../support/stub-endpoint.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import { withLimits } from "./fixtures.ts";
import { exitCode, type FaultScenario, requests, told, toolResults } from "./scenario.ts";

const wire = "openai";
const window = { contextWindow: 8192, maxOutput: 1024 };

/** Lines `line 1 …` to `line n …`, each padded so the file is about `n * 40` bytes. */
function numbered(n: number, word = "line"): string {
  let out = "";
  for (let i = 1; i <= n; i++) out += `${word} ${i} ${"·".repeat(20)}\n`;
  return out;
}

/** The stored result's name from the last tool result the model was sent. */
function storedName(request: LoggedRequest): string {
  const last = toolResults(request).at(-1) ?? "";
  return /@results\/[\w.-]*\w/.exec(last)?.[0] ?? "@results/missing";
}

/** Every request fits the window: what the model was sent is not larger than the window allows. */
const requestsFit: FaultScenario["checks"][number] = (o) => {
  for (const request of o.requests) {
    const bytes = Buffer.byteLength(request.rawBody);
    // 8,192 tokens at about 3 bytes a token, generously: a result that was not fitted is far larger.
    if (bytes > 8192 * 4) return `request ${request.index} is ${bytes} bytes for an 8k window`;
  }
  return null;
};

export const smallWindowScenarios: FaultScenario[] = [
  {
    name: "8k window: read_file of a 48 KB file",
    wire,
    expect: "the turn completes: read_file shows a page and says where to continue",
    setup: (box) => {
      withLimits(box, wire, window);
      writeFileSync(join(box.workspace, "big.txt"), numbered(1200));
    },
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "big.txt" } }),
      openaiToolCall({ name: "read_file", args: { path: "big.txt", offset: 1150, limit: 5 } }),
      openaiText("read it"),
    ],
    checks: [
      told(/Continue with offset \d+/),
      told(/1150\tline 1150 /, 2),
      requests(3),
      requestsFit,
      exitCode(0),
    ],
  },
  {
    name: "8k window: cat of a 2 MB log",
    wire,
    expect: "stored whole; the model reads line 40,000 of it with read_file; the turn completes",
    setup: (box) => {
      withLimits(box, wire, window);
      writeFileSync(join(box.workspace, "app.log"), numbered(50_000));
    },
    handler: (request, index) => {
      if (index === 0) return openaiToolCall({ name: "bash", args: { command: "cat app.log" } });
      if (index === 1) {
        const name = storedName(request);
        return openaiToolCall({
          name: "read_file",
          args: { path: name, offset: 40_000, limit: 2 },
        });
      }
      return openaiText("found it");
    },
    checks: [
      told(/The full result \([\d,]+ bytes, 50,000 lines\)[\s\S]*stored whole as "@results\//),
      told(/40000\tline 40000 /, 2),
      requests(3),
      requestsFit,
      exitCode(0),
    ],
  },
  {
    name: "8k window: a grep with 50,000 matches",
    wire,
    expect: "every match is stored; the model finds the last one in the stored list",
    setup: (box) => {
      withLimits(box, wire, window);
      writeFileSync(join(box.workspace, "data.txt"), numbered(50_000, "needle"));
    },
    handler: (request, index) => {
      if (index === 0) return openaiToolCall({ name: "grep", args: { pattern: "needle" } });
      if (index === 1) {
        return openaiToolCall({
          name: "grep",
          args: { pattern: "needle 49999 ", path: storedName(request) },
        });
      }
      return openaiText("found it");
    },
    checks: [
      told(/stored whole as "@results\/[\s\S]*50,000 matches in 1 file/),
      told(/data\.txt:49999: needle 49999 /, 2),
      requests(3),
      requestsFit,
      exitCode(0),
    ],
  },
  {
    name: "8k window: eight results that each fit, one after another",
    wire,
    expect:
      "older results become stubs naming their stored copy; the model pages the oldest back whole; no compaction, every request fits",
    setup: (box) => {
      withLimits(box, wire, window);
      for (let k = 1; k <= 8; k++)
        writeFileSync(join(box.workspace, `f${k}.txt`), numbered(55, `file${k}`));
    },
    handler: (request, index) => {
      if (index < 8)
        return openaiToolCall({ name: "read_file", args: { path: `f${index + 1}.txt` } });
      if (index === 8) {
        // The stub of f1's read names where it is stored: the model reads a line of it from there.
        const stub = toolResults(request).find((text) => text.startsWith(STUB_MARK)) ?? "";
        const name = /stored as "(@results\/[^"]+)"/.exec(stub)?.[1] ?? "@results/missing";
        return openaiToolCall({ name: "read_file", args: { path: name, offset: 30, limit: 1 } });
      }
      return openaiText("all read");
    },
    checks: [
      (o) =>
        toolResults(o.requests[8]).some((text) => text.startsWith(STUB_MARK))
          ? null
          : "no result was stubbed by the ninth request",
      (o) => {
        const last = toolResults(o.requests[8]).slice(-3);
        return last.every((text) => !text.startsWith(STUB_MARK))
          ? null
          : "a result of the last three turns was stubbed";
      },
      // Line 30 of the stored result (its first line is the read's header): the file's line 29.
      told(/30\t +29\tfile1 29 /, 9),
      (o) => {
        // nex's own measure of a prompt (3.5 bytes a token): none may exceed the window.
        const over = o.requests.find((r) => Buffer.byteLength(r.rawBody) > 8192 * 3.5);
        return over ? `request ${over.index} is ${Buffer.byteLength(over.rawBody)} bytes` : null;
      },
      (o) => (/"compact/.test(o.stdout) ? "a compaction ran" : null),
      requests(10),
      requestsFit,
      exitCode(0),
    ],
  },
  {
    name: "a stored result that is not there",
    wire,
    expect: "a clear error naming it; the session goes on",
    scripts: [
      openaiToolCall({ name: "read_file", args: { path: "@results/mwaaaaaa-9-bash.txt" } }),
      openaiText("ok"),
    ],
    checks: [told(/@results\/mwaaaaaa-9-bash\.txt is not stored any more/), exitCode(0)],
  },
];

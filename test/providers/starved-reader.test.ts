// A nex held busy (a loaded machine, a local model server on the same cores) must not call an answer
// silent when its bytes came while nex was busy: once nex runs again, its due timers run before its
// sockets are read, so a timeout must first let the bytes that are waiting in.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ProviderEvent } from "../../src/protocol/index.ts";
import { createOpenAIClient } from "../../src/providers/index.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { doneTurn, sampleRequest } from "./helpers.ts";

// An endpoint in its own process (it sends while this one is held): it answers with the first
// `early` parts, the rest once told to go (a file), and marks when all was sent.
const SERVER = `
const { createServer } = require("node:http");
const { existsSync, readFileSync, writeFileSync } = require("node:fs");
const [dir, early] = process.argv.slice(1);
const parts = JSON.parse(readFileSync(dir + "/parts.json", "utf8"));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
createServer((req, res) => {
  req.resume();
  req.on("end", async () => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    for (const part of parts.slice(0, Number(early))) res.write(part);
    while (!existsSync(dir + "/go")) await sleep(10);
    for (const part of parts.slice(Number(early))) res.write(part);
    res.end(() => writeFileSync(dir + "/sent", ""));
  });
}).listen(0, "127.0.0.1", function () {
  console.log("http://127.0.0.1:" + this.address().port);
});
`;

async function endpoint(t: { after(fn: () => void): void }, text: string, early: number) {
  const dir = scratchDir("nex-starved-");
  const script = openaiText(text);
  const parts = script.type === "stream" ? script.parts : [];
  writeFileSync(join(dir, "parts.json"), JSON.stringify(parts));
  const child = spawn(process.execPath, ["-e", SERVER, dir, String(early)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  t.after(() => child.kill());
  const url = await new Promise<string>((found) => {
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) found(out.trim());
    });
  });
  return {
    url,
    go: () => writeFileSync(join(dir, "go"), ""),
    sent: () => existsSync(join(dir, "sent")),
  };
}

/** Holds this process busy (no timer, no socket served) until `done` holds and `ms` have passed. */
function holdUntil(done: () => boolean, ms: number): void {
  const start = Date.now();
  while (!done() || Date.now() - start < ms) {
    // Busy.
  }
}

async function drain(
  url: string,
  timeouts: { firstByteMs: number; idleMs: number },
  onEvent: (event: ProviderEvent) => void,
): Promise<ProviderEvent[]> {
  const stream = createOpenAIClient({
    baseUrl: `${url}/v1`,
    retry: { sleep: async () => {} },
    timeouts,
  });
  const events: ProviderEvent[] = [];
  for await (const event of stream(sampleRequest(), new AbortController().signal)) {
    events.push(event);
    onEvent(event);
  }
  return events;
}

// The hold runs in setImmediate: held there, nex meets its due timers first when it runs again (a
// hold in a timer would end before the loop's clock moved on).
test("a stream whose next bytes came while nex was held is read, not timed out as stalled", async (t) => {
  const server = await endpoint(t, "one two three four five six", 2);
  let held = false;
  const events = await drain(server.url, { firstByteMs: 30_000, idleMs: 500 }, (event) => {
    if (event.type !== "text_delta" || held) return;
    held = true;
    // The reader now waits for the next chunk with its idle timer set: held past it while it comes.
    setImmediate(() => {
      server.go();
      holdUntil(server.sent, 1_000);
    });
  });
  assert.deepEqual(
    events.filter((e) => e.type === "attempt_failed"),
    [],
  );
  assert.equal(doneTurn(events).text, "one two three four five six");
});

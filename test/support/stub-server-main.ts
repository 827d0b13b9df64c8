// Runs a stub endpoint in its own process, for tests that run nex as a child process.
// Usage: node test/support/stub-server-main.ts <script.json> [requests.jsonl]
//   script.json: an array of scripts (the queue), or { "scripts": [...], "routes": { "GET /props": {...} } }.
//   requests.jsonl: when given, every request received is appended to it as one JSON line.
// Prints the base URL as the first line of stdout, then serves until SIGTERM or SIGINT.
// More scripts can be queued with POST <url>/__stub/enqueue (a JSON array); GET <url>/__stub/requests lists the log.
import { appendFileSync, readFileSync } from "node:fs";
import { startStubEndpoint } from "./stub-endpoint.ts";
import type { Script } from "./stub-scripts.ts";

const [scriptPath, logPath] = process.argv.slice(2);
if (!scriptPath) {
  console.error("usage: stub-server-main.ts <script.json> [requests.jsonl]");
  process.exit(2);
}

const parsed = JSON.parse(readFileSync(scriptPath, "utf8")) as
  | Script[]
  | { scripts?: Script[]; routes?: Record<string, Script> };
const config = Array.isArray(parsed) ? { scripts: parsed } : parsed;

const stub = await startStubEndpoint({
  scripts: config.scripts ?? [],
  routes: config.routes ?? {},
  ...(logPath
    ? { onRequest: (request) => appendFileSync(logPath, `${JSON.stringify(request)}\n`) }
    : {}),
});
process.stdout.write(`${stub.url}\n`);

const stop = () => {
  void stub.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

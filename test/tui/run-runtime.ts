// Runs the TUI over the real runtime pieces that exist without the CLI: NexSession, the agent loop and the
// OpenAI client, against `baseUrl` (a stub endpoint), with no tools and an in-memory journal.
// Usage: node test/tui/run-runtime.ts <baseUrl>
// It exists so the real event flows (retries, failures, interrupts) reach the TUI before `nex chat` starts it.
import { createOpenAIClient } from "../../src/providers/index.ts";
import { NexSession } from "../../src/runtime/nex-session.ts";
import { runTui } from "../../src/tui/index.ts";

const [baseUrl] = process.argv.slice(2);
if (!baseUrl) {
  process.stderr.write("usage: run-runtime.ts <baseUrl>\n");
  process.exit(2);
}
const host = new URL(baseUrl).host;
const window = 32_768;
const session = new NexSession({
  info: {
    sessionId: "s-runtime",
    provider: "openai",
    model: "m",
    host,
    workspace: process.cwd(),
    contextWindow: window,
    windowSource: "default",
    permissionMode: "ask",
    journalPath: "(memory)",
  },
  stream: createOpenAIClient({ baseUrl, apiKey: "test" }),
  tools: {
    specs: () => [],
    permission: async () => ({ type: "allow" }),
    rememberApproval: () => {},
    execute: async () => ({ isError: true, content: "no tools in this harness", code: "internal" }),
    setMode: () => {},
    undo: async () => "Nothing to undo.",
  },
  journal: { message() {}, event() {}, ledger() {}, usage() {}, sync() {}, close() {} },
  system: "You are a test.",
  messages: [],
  budget: {
    estimatePrompt: () => 100,
    maxTokensFor: () => 1024,
    largestMaxTokensFor: () => 1024,
    correctWindow: () => {},
    window: () => window,
    observeUsage: () => {},
    forgetUsage: () => {},
  },
  compactor: null,
  compactNow: async () => null,
  approvals: "interactive",
  maxTurns: 10,
  listSessions: async () => [],
  switchModel: async () => {
    throw new Error("this harness has one model");
  },
});
process.exitCode = await runTui(session);

// Child agents (`delegate`, `map`) under the same rules as the session: permissions, secrets, bounds.
// A child's requests follow the parent's in the scripts, in order.
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import {
  absent,
  type Check,
  exitCode,
  type FaultScenario,
  neverPrinted,
  requests,
  requestsAtMost,
  told,
} from "./scenario.ts";

const wire = "openai";
const KEY = "sk-proj-Qm3vT8nL1xC7bK9wR2sJ6dH4cY5pE0gA8uZ1";
const call = (name: string, args: Record<string, unknown>) => openaiToolCall({ name, args });

/** No model request carries this text anywhere. */
const neverSent =
  (text: string): Check =>
  (o) => {
    const hit = o.requests.find((request) => request.rawBody.includes(text));
    return hit ? `request ${hit.index} carries "${text.slice(0, 24)}"` : null;
  };

export const subagentScenarios: FaultScenario[] = [
  {
    name: "a work child without --yes",
    wire,
    expect: "the child's write needs approval, headless refuses it: nothing written, exit 4",
    permission: [],
    scripts: [
      call("delegate", { task: "write x.txt", mode: "work" }),
      call("write_file", { path: "x.txt", content: "x\n" }),
      openaiText("I could not write x.txt."),
      openaiText("The child could not write it."),
    ],
    checks: [
      absent("x.txt"),
      exitCode(4),
      told(/headless mode without --yes has nobody to ask/, 2),
    ],
  },
  {
    name: "a child that tries to delegate again",
    wire,
    expect: "no delegation below a child: the call fails as an unknown tool, nothing more starts",
    scripts: [
      call("delegate", { task: "split this up" }),
      call("delegate", { task: "deeper" }),
      openaiText("I cannot delegate."),
      openaiText("ok"),
    ],
    checks: [requests(4), exitCode(0), told(/delegate is not one of this agent's tools/, 2)],
  },
  {
    name: "a child that repeats one call forever",
    wire,
    expect: "the child's repeat guard and turn bound stop it; the parent is told why, once",
    files: { "a.txt": "a\n" },
    scripts: [call("delegate", { task: "loop", max_turns: 6 })],
    handler: (request) =>
      JSON.stringify(request.body).includes("sub-agent of nex")
        ? call("glob", { pattern: "*.txt" })
        : openaiText("the child looped"),
    checks: [requestsAtMost(8), exitCode(0), told(/Sub-agent agent-1 \(explore\) stopped/, -1)],
  },
  {
    name: "a child reads a file holding nex's key",
    wire,
    expect: "the key is replaced before the child's model, the parent, --json or the screen see it",
    env: { OPENAI_API_KEY: KEY },
    files: { ".env": `OPENAI_API_KEY=${KEY}\n` },
    scripts: [
      call("delegate", { task: "what is in .env?" }),
      call("read_file", { path: ".env" }),
      openaiText("It holds OPENAI_API_KEY=[redacted: OPENAI_API_KEY]."),
      openaiText("done"),
    ],
    checks: [
      exitCode(0),
      neverSent(KEY),
      neverPrinted(KEY),
      told(/\[redacted: OPENAI_API_KEY\]/, 2),
    ],
  },
];

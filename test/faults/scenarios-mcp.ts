// biome-ignore-all lint/suspicious/noTemplateCurlyInString: a scenario writes ${VAR} as users do in their config
// MCP servers that misbehave, as fault scenarios: a server in nex's config file (written by setup)
// dies, hangs, floods, lies or leaks, and the model must be told exactly what happened.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Sandbox } from "../support/cli.ts";
import { everythingServer, scriptServer } from "../support/mcp-servers.ts";
import { openaiText, openaiToolCall } from "../support/stub-scripts.ts";
import {
  exitCode,
  type FaultScenario,
  neverPrinted,
  neverTold,
  stderrSays,
  told,
} from "./scenario.ts";

const wire = "openai";
const HOSTILE = join(import.meta.dirname, "..", "support", "hostile-mcp-server.ts");
const SECRET = "mcp-fault-secret-4Rt8Yq2Wz6Lp";

/** Writes nex's config file with these MCP servers. */
const withServers =
  (servers: Record<string, object>) =>
  (box: Sandbox): void => {
    const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "config.json"), JSON.stringify({ mcpServers: servers }));
  };

const hostile = (tool: string, args: object = {}) =>
  openaiToolCall({ name: `mcp__hostile__${tool}`, args });

const done = openaiText("done");

export const mcpScenarios: FaultScenario[] = [
  {
    name: "mcp: the server dies mid-call",
    wire,
    expect: "outcome unknown, with its exit and stderr; not re-sent",
    setup: withServers({ hostile: scriptServer(HOSTILE) }),
    scripts: [hostile("crash"), done],
    checks: [
      exitCode(0),
      told(/outcome unknown: it may or may not have happened/),
      told(/panic: connection pool exhausted/),
      told(/nex did not send it again/),
      neverTold(/^crash(ed)? ok|succeeded/),
    ],
  },
  {
    name: "mcp: the server never answers",
    wire,
    expect: "after its timeout: outcome unknown, and the server told to cancel",
    setup: withServers({ hostile: { ...scriptServer(HOSTILE), timeoutSeconds: 2 } }),
    scripts: [hostile("hang"), done],
    checks: [
      exitCode(0),
      told(
        /did not answer within 2 s.*outcome unknown|outcome unknown.*did not answer within 2 s/s,
      ),
    ],
  },
  {
    name: "mcp: a 10 MB result",
    wire,
    expect: "stored whole and paged, not flooded into the window",
    setup: withServers({ hostile: scriptServer(HOSTILE) }),
    scripts: [hostile("huge"), done],
    checks: [exitCode(0), told(/stored whole as "@results\//)],
  },
  {
    name: "mcp: structured content breaks its output schema",
    wire,
    expect: "an error, not a success",
    setup: withServers({ hostile: scriptServer(HOSTILE) }),
    scripts: [hostile("bad_structured"), done],
    checks: [exitCode(0), told(/does not match the output schema it declares/)],
  },
  {
    name: "mcp: the server echoes a secret from its env",
    wire,
    expect: "redacted for the model, the screen and --json",
    setup: withServers({ everything: everythingServer({ API_TOKEN: "${FAULT_TOKEN}" }) }),
    env: { FAULT_TOKEN: SECRET },
    scripts: [openaiToolCall({ name: "mcp__everything__get-env", args: {} }), done],
    checks: [
      exitCode(0),
      told(/API_TOKEN.*redacted/s),
      neverTold(new RegExp(SECRET)),
      neverPrinted(SECRET),
    ],
  },
  {
    name: "mcp: the server fails to start",
    wire,
    expect: "reported once with its stderr; the run goes on",
    setup: withServers({ hostile: scriptServer(HOSTILE, { FAIL_AT_START: "1" }) }),
    scripts: [done],
    checks: [exitCode(0), stderrSays(/hostile .* was not started: .*cannot open database/)],
  },
];

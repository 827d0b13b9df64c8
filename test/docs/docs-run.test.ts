// Every `nex` command line of the docs' shell examples runs as written and succeeds, so none goes
// stale: in a fresh workspace and config, through bash with `nex` on PATH, against the stub endpoint
// standing in for the server the example assumes (its OPENAI_BASE_URL, or the local URL it names).
// The chat needs a terminal and a block marked `docs-test: parse only` a hosted model or the
// network: those are checked by the parser (docs.test.ts) only.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parseCommand } from "../../src/cli/args.ts";
import { makeSandbox } from "../support/cli.ts";
import { healthyOpenAI, modelList } from "../support/healthy-endpoint.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { nexLines, root, words } from "./doc-examples.ts";

/** A `nex` on PATH that runs this checkout, as `npm install -g` or `npx nex` would. */
function nexOnPath(): string {
  const dir = scratchDir("nex-docs-bin-");
  const shim = join(dir, "nex");
  writeFileSync(
    shim,
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(root, "bin", "nex.js"))} "$@"\n`,
  );
  chmodSync(shim, 0o755);
  return dir;
}

function bash(
  line: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", line], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    // An example that never ends (a server, a handler) must be marked parse-only: it fails here, whole
    // process group stopped, instead of hanging the suite.
    const stop = setTimeout(() => {
      out +=
        "\n[docs test] still running after 90 s: stopped; mark the block parse-only if it serves";
      process.kill(-(child.pid as number), "SIGKILL");
    }, 90_000);
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on("close", (code) => {
      clearTimeout(stop);
      resolve({ code, out });
    });
  });
}

test("every nex command line in the docs' shell examples runs and succeeds against a stand-in server", {
  timeout: 600_000,
}, async () => {
  const bin = nexOnPath();
  let ran = 0;
  for (const { page, line, parseOnly } of nexLines()) {
    // Read as the shell would after expanding the variables (to a plain word).
    const args = words(line.replace(/\$\{?[A-Za-z_][A-Za-z0-9_]*\}?/g, "v1")).slice(1);
    const command = parseCommand(args);
    // The chat needs a terminal, a chat-file handler serves until released (test/headless/chat-files
    // runs it as workgraph would); a marked block needs what no test has.
    if (parseOnly !== null || command.type === "chat" || command.type === "chat-files") continue;
    const model = /^(?:[^:]+:)?(.+)$/.exec(args[args.indexOf("--model") + 1] ?? "")?.[1];
    const stub = await startStubEndpoint({
      routes: { "GET /v1/models": modelList([model ?? "stub-model"]) },
      ...(command.type === "doctor"
        ? { scripts: healthyOpenAI() }
        : { handler: () => openaiText("Done: nothing needed changing.") }),
    });
    try {
      const box = makeSandbox();
      // The variables the examples assume: an orchestrator's task folder with its prompt.
      const taskDir = join(box.workspace, "..", "task");
      mkdirSync(taskDir);
      writeFileSync(join(taskDir, "prompt.md"), "Say what this workspace holds.\n");
      const env = {
        ...box.env,
        PATH: `${bin}:${box.env.PATH}`,
        OPENAI_BASE_URL: `${stub.url}/v1`,
        OPENAI_API_KEY: "sk-docs-example",
        TASK_DIR: taskDir,
        TASK_ID: "7",
      };
      const local = line.replace(/http:\/\/(?:127\.0\.0\.1|localhost):\d+\/v1/g, `${stub.url}/v1`);
      const result = await bash(local, box.workspace, env);
      assert.equal(result.code, 0, `${page}: ${line}\n${result.out}`);
      if (command.type === "run" || command.type === "doctor")
        assert.ok(stub.requestsTo("/v1/chat/completions").length > 0, `${page}: ${line}`);
      ran++;
    } finally {
      await stub.close();
    }
  }
  assert.ok(ran >= 6, `${ran} examples ran`);
});

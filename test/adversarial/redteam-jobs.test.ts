// Adversarial review of background jobs: none outlives nex, however nex ends.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { makeSandbox, startNex } from "../support/cli.ts";
import { hang, openaiToolCall, startStubEndpoint } from "../support/stub-endpoint.ts";

/** Live processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const line = readFileSync(`/proc/${name}/cmdline`, "latin1");
      const state = readFileSync(`/proc/${name}/stat`, "latin1");
      if (line.includes(marker) && !/^[ZX]/.test(state.slice(state.lastIndexOf(")") + 2)))
        found.push(Number(name));
    } catch {
      // Gone.
    }
  }
  return found;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

for (const sandbox of ["off", "workspace-write"])
  test(`a background job (sandbox ${sandbox}) dies with nex when nex is killed outright (SIGKILL)`, {
    timeout: 120_000,
  }, async () => {
    const box = makeSandbox();
    const marker = `nexjob${randomUUID().slice(0, 8)}`;
    const stub = await startStubEndpoint({
      scripts: [
        openaiToolCall({
          name: "bash",
          args: { command: `exec -a ${marker} sleep 1000`, background: true },
        }),
        hang(),
      ],
    });
    const args = ["run", "--yes", "--sandbox", sandbox, "--model", "m"];
    const nex = startNex([...args, "--base-url", `${stub.url}/v1`, "go"], {
      cwd: box.workspace,
      env: box.env,
    });
    try {
      for (let i = 0; i < 1200 && stub.requestsTo("/v1/chat/completions").length < 2; i++)
        await sleep(50);
      assert.ok(processesWith(marker).length > 0, "the job was running");
      nex.child.kill("SIGKILL");
      await nex.done;
      let left = processesWith(marker);
      for (let i = 0; i < 200 && left.length > 0; i++) {
        await sleep(50);
        left = processesWith(marker);
      }
      assert.deepEqual(left, [], "the job outlived nex");
    } finally {
      for (const pid of processesWith(marker)) process.kill(pid, "SIGKILL");
      await stub.close();
    }
  });

// A sandboxed command keeps no power it does not need, through the real `nex run --yes`: as root it
// cannot leave a setuid or setgid program in the workspace (anyone would run it later with root's
// rights), and its private temp folders are sized, so a runaway write fills a cap, not host memory.
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { toolResults } from "../faults/scenario.ts";
import { sandboxMissing } from "../support/bwrap.ts";
import { makeSandbox, runNex, type Sandbox } from "../support/cli.ts";
import {
  openaiText,
  openaiToolCall,
  type Script,
  startStubEndpoint,
} from "../support/stub-endpoint.ts";

const skip = sandboxMissing() ?? false;
const bash = (command: string): Script => openaiToolCall({ name: "bash", args: { command } });

async function run(box: Sandbox, scripts: Script[]) {
  const stub = await startStubEndpoint({ scripts: [...scripts, openaiText("done")] });
  const args = ["run", "--yes", "--model", "stub-model", "--base-url", `${stub.url}/v1`, "go"];
  const result = await runNex(args, { cwd: box.workspace, env: box.env });
  await stub.close();
  const requests = stub.requestsTo("/v1/chat/completions");
  return { result, results: toolResults(requests.at(-1)) };
}

test("a sandboxed command cannot leave a setuid or setgid program in the workspace, by any call that sets a mode", {
  skip,
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  const { result, results } = await run(box, [
    bash(
      [
        "cp /bin/sh rootsh; chmod 4755 rootsh; chmod u+s rootsh; chmod g+s rootsh",
        "install -m 6755 /bin/sh rootsh2",
        `perl -MFcntl -e 'sysopen(F, "rootsh3", O_CREAT|O_WRONLY, 04755) or die "sysopen: $!\\n"'`,
        `python3 -c 'import os; os.close(os.open("rootsh4", os.O_CREAT | os.O_WRONLY, 0o2755))'`,
        "mkdir -p lib && cp /bin/true lib/tool && chmod 755 lib/tool && echo plain-modes-ok",
      ].join("; "),
    ),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const setid: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const info = statSync(path);
      if (info.isDirectory()) walk(path);
      else if (info.mode & 0o6000) setid.push(`${path} ${(info.mode & 0o7777).toString(8)}`);
    }
  };
  walk(box.workspace);
  assert.deepEqual(setid, [], "a setuid/setgid file was left in the workspace");
  assert.match(results[0] ?? "", /plain-modes-ok/, "ordinary modes still work");
  assert.equal(statSync(join(box.workspace, "lib", "tool")).mode & 0o777, 0o755);
  assert.match(results[0] ?? "", /setuid or setgid bit/, "the model is told why");
});

test("the private temp folders are capped by sandbox.tmpSizeMiB, and a command that fills one is told so", {
  skip,
  timeout: 120_000,
}, async () => {
  const box = makeSandbox();
  mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
  writeFileSync(
    join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
    JSON.stringify({ sandbox: { tmpSizeMiB: 16 } }),
  );
  // 64 MiB into each memory-backed folder a command can write; each stops at the cap.
  const fill = (dir: string) =>
    `head -c 67108864 /dev/zero > ${dir}/fill 2>/dev/null; echo "${dir}=$(stat -c %s ${dir}/fill 2>/dev/null || echo none)"`;
  const { result, results } = await run(box, [
    bash(["/tmp", "/var/tmp", "/dev/shm", "/run", "/dev"].map(fill).join("; ")),
    bash("head -c 67108864 /dev/zero > /tmp/big"),
  ]);
  assert.equal(result.code, 0, result.stderr);
  const sizes = Object.fromEntries(
    [...(results[0] ?? "").matchAll(/^(\/[a-z/]+)=(\w+)$/gm)].map((m) => [m[1], m[2]]),
  );
  const cap = 16 * 1024 * 1024;
  for (const dir of ["/tmp", "/var/tmp", "/dev/shm", "/run"]) {
    const size = Number(sizes[dir]);
    assert.ok(size > 0 && size <= cap, `${dir} held ${sizes[dir]} bytes: ${results[0]}`);
  }
  assert.equal(sizes["/dev"], "none", "/dev itself takes no files");
  assert.match(results[1] ?? "", /No space left on device/);
  assert.match(results[1] ?? "", /private temp folder .* is full: each holds at most 16 MiB/);
  assert.match(results[1] ?? "", /"tmpSizeMiB"/);
});

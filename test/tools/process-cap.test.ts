// The pids cgroup around a sandboxed command is the last word on its processes: whatever is in it,
// wherever it sits in the process tree (reparented to init when bubblewrap's own init outlived its
// parent), is killed when nex stops the command, releases it, or exits.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { createProcessCap } from "../../src/tools/sandbox/process-limit.ts";
import { until } from "../support/until.ts";

const cap = createProcessCap(64);
const skip =
  cap === null ? "no pids cgroup this process may create (not root, or none delegated)" : false;
cap?.release();

/** Starts `sleep` detached from this process's group, inside `dir`'s cgroup, as an escaped process would be. */
async function memberOf(dir: string): Promise<number> {
  const child = spawn(
    "sh",
    ["-c", 'echo $$ > "$1/cgroup.procs" && exec sleep 600', "member", dir],
    {
      detached: true,
      stdio: "ignore",
    },
  );
  child.unref();
  const pid = child.pid ?? 0;
  await until(() => members(dir).includes(pid), "the member to join the cgroup");
  return pid;
}

function members(dir: string): number[] {
  try {
    return readFileSync(`${dir}/cgroup.procs`, "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

test("stopping a command's cgroup kills every process in it, even ones outside its process tree", {
  skip,
  timeout: 60_000,
}, async () => {
  const held = createProcessCap(64);
  assert.ok(held);
  const a = await memberOf(held.dir);
  const b = await memberOf(held.dir);
  held.kill();
  await until(() => !alive(a) && !alive(b), "both members are dead");
  held.release();
  await until(() => !existsSync(held.dir), "the cgroup is removed");
});

test("releasing a command's cgroup kills what is still in it before removing it", {
  skip,
  timeout: 60_000,
}, async () => {
  const held = createProcessCap(64);
  assert.ok(held);
  const straggler = await memberOf(held.dir);
  held.release();
  await until(() => !alive(straggler), "the straggler is dead");
  await until(() => !existsSync(held.dir), "the cgroup is removed");
});

test("nex's exit kills what a running command's cgroup holds", {
  skip,
  timeout: 60_000,
}, async () => {
  // A real nex-like process: it creates the cap, registers it as a running command, and exits
  // (process.exit, as after a second Ctrl-C) while a member still runs.
  const script = `
    import { createProcessCap } from ${JSON.stringify(new URL("../../src/tools/sandbox/process-limit.ts", import.meta.url).href)};
    import { commandTag, killOnExit } from ${JSON.stringify(new URL("../../src/tools/shell/leftover-processes.ts", import.meta.url).href)};
    import { spawn } from "node:child_process";
    const cap = createProcessCap(64);
    const child = spawn("sh", ["-c", 'echo $$ > "$1/cgroup.procs" && exec sleep 600', "m", cap.dir], { detached: true, stdio: "ignore" });
    killOnExit(commandTag(), undefined, () => cap.kill());
    setTimeout(() => { console.log(child.pid + " " + cap.dir); process.exit(9); }, 500);
  `;
  const nex = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  nex.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise((resolve) => nex.on("exit", resolve));
  assert.equal(code, 9);
  const [pid, dir] = out.trim().split(" ");
  assert.ok(Number(pid) > 0, out);
  await until(() => !alive(Number(pid)), "the member is dead");
  await until(() => members(dir ?? "").length === 0, "the cgroup is empty");
});

test("a nex killed outright leaves nothing in its cgroups: the next nex kills what is there and removes them", {
  skip,
}, async () => {
  const probe = createProcessCap(8);
  assert.ok(probe);
  const root = dirname(probe.dir);
  probe.release();
  // A pid that was a process and is gone: the nex that made the cgroup.
  const gone = spawn("true");
  await new Promise((resolve) => gone.once("exit", resolve));
  const stale = join(root, `nex-${gone.pid}-1`);
  mkdirSync(stale);
  const left = await memberOf(stale);
  const next = spawn(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { createProcessCap } = await import(${JSON.stringify(join(import.meta.dirname, "../../src/tools/sandbox/process-limit.ts"))}); createProcessCap(8)?.release();`,
    ],
    { stdio: "inherit" },
  );
  await new Promise((resolve) => next.once("exit", resolve));
  await until(() => !alive(left), "the stale member is killed");
  await until(() => !existsSync(stale), "the stale cgroup is removed");
});

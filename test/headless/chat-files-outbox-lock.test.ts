// Outbox ids with a second writer: workgraph's own writer (a real Python process taking flock(2) on
// outbox.jsonl.lock, as src/chat.rs does) appends to the outbox while nex answers messages. No line
// may be torn and no id repeated; and the lock helper holds workgraph's lock on nex's descriptor.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { LOCK_HELPERS, lockOutbox } from "../../src/headless/chat-files/outbox-lock.ts";
import { chatArgs, until, WORKGRAPH_WRITER } from "../support/chat-folder.ts";
import { makeSandbox, startNex } from "../support/cli.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, status } from "../support/stub-scripts.ts";

const python = spawnSync("python3", ["-c", "import fcntl"]).status === 0;
const skip = python ? false : "python3 is not installed (it plays workgraph's writer)";

function lines(chat: string): string[] {
  return readFileSync(join(chat, "outbox.jsonl"), "utf8").split("\n").slice(0, -1);
}

test("--chat outbox: workgraph's writer appending at the same time: no line torn, no id repeated, ids grow", {
  skip,
  timeout: 240_000,
}, async () => {
  const stub = await startStubEndpoint({
    handler: (request) =>
      request.path.endsWith("/chat/completions")
        ? openaiText(`answer ${"n".repeat(6000)}`)
        : status(404),
  });
  const box = makeSandbox();
  const chat = scratchDir("nex-chat-");
  const messages = 25;
  for (let id = 1; id <= messages; id++)
    appendFileSync(
      join(chat, "inbox.jsonl"),
      `${JSON.stringify({ id, role: "user", content: `message ${id}`, request_id: `r${id}` })}\n`,
    );
  const writer = spawn("python3", ["-c", WORKGRAPH_WRITER, chat, "20000", "5000"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let written = "";
  writer.stdout.on("data", (chunk) => {
    written += chunk;
  });
  const writerDone = new Promise((resolve) => writer.on("close", resolve));
  // The writer is appending before nex starts, and goes on until nex has answered every message.
  await until(() => existsSync(join(chat, "outbox.jsonl")), "workgraph's first line");
  const nex = startNex(chatArgs(chat, stub.url, box.dataDir), {
    cwd: box.workspace,
    env: { ...box.env, OPENAI_API_KEY: "k" },
  });
  try {
    await until(
      () => lines(chat).filter((line) => line.includes('"in_reply_to"')).length === messages,
      "nex's replies",
      200_000,
    );
  } finally {
    writeFileSync(join(chat, "stop"), "");
    nex.child.kill("SIGTERM");
  }
  await writerDone;
  const result = await nex.done;
  await stub.close();
  assert.doesNotMatch(result.stderr, /without it/, "nex took the lock every time");
  const all = lines(chat).map((line) => JSON.parse(line) as { id: number; request_id: string });
  const ids = all.map((line) => line.id);
  assert.equal(new Set(ids).size, ids.length, "no id repeated");
  for (let i = 1; i < ids.length; i++)
    assert.ok(
      (ids[i] as number) > (ids[i - 1] as number),
      `ids grow line by line (${ids[i - 1]}, ${ids[i]})`,
    );
  const ours = all.filter((line) => line.request_id.startsWith("r"));
  assert.deepEqual(
    ours.map((line) => line.request_id),
    Array.from({ length: messages }, (_, i) => `r${i + 1}`),
  );
  assert.equal(
    all.length - ours.length,
    Number(written.trim()),
    "every line of workgraph's is there",
  );
  assert.ok(
    all.length - ours.length > messages,
    `the writer kept appending (${all.length - ours.length} lines)`,
  );
});

test("outbox lock: held on nex's descriptor after the helper exits, excludes workgraph's flock, waits for it, and says when it could not be taken", {
  skip,
}, async () => {
  const chat = scratchDir("nex-chat-");
  const lockPath = join(chat, "outbox.jsonl.lock");
  const tryLock = () =>
    spawnSync("python3", [
      "-c",
      `import fcntl,sys\nf=open(sys.argv[1],"a+")\ntry:\n  fcntl.flock(f, fcntl.LOCK_EX|fcntl.LOCK_NB)\n  print("free")\nexcept OSError:\n  print("held")`,
      lockPath,
    ])
      .stdout.toString()
      .trim();
  for (const helper of [["flock", "-x", "3"]] as const) {
    const held = await lockOutbox(lockPath, 30_000, [helper]);
    assert.equal(held.unlocked, null);
    assert.equal(
      tryLock(),
      "held",
      `${helper[0]}: workgraph cannot take the lock while nex holds it`,
    );
    held.release();
    assert.equal(tryLock(), "free", `${helper[0]}: released`);
  }
  // perl, where flock(1) is missing (macOS).
  if (spawnSync("perl", ["-MFcntl=:flock", "-e", "1"]).status === 0) {
    const perl = LOCK_HELPERS.filter((helper) => helper[0] === "perl");
    const viaPerl = await lockOutbox(lockPath, 30_000, [["no-such-flock-helper"], ...perl]);
    assert.equal(viaPerl.unlocked, null, "perl took the lock");
    assert.equal(tryLock(), "held", "perl: workgraph cannot take the lock while nex holds it");
    viaPerl.release();
    assert.equal(tryLock(), "free", "perl: released");
  }
  // Workgraph holds it: nex waits, then says so rather than hang the reply.
  const holder = spawn("python3", [
    "-c",
    `import fcntl,sys,time\nf=open(sys.argv[1],"a+")\nfcntl.flock(f, fcntl.LOCK_EX)\nprint("locked", flush=True)\nsys.stdin.read()`,
    lockPath,
  ]);
  await new Promise((resolve) => holder.stdout.once("data", resolve));
  const timedOut = await lockOutbox(lockPath, 300);
  assert.match(timedOut.unlocked ?? "", /another process held outbox\.jsonl\.lock for over/);
  const waiting = lockOutbox(lockPath, 60_000);
  holder.stdin.end();
  const after = await waiting;
  assert.equal(after.unlocked, null, "taken once workgraph let go");
  after.release();
  const none = await lockOutbox(lockPath, 1000, [["no-such-flock-helper"]]);
  assert.match(none.unlocked ?? "", /neither no-such-flock-helper is on PATH[\s\S]*util-linux/);
});

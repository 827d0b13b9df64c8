// Attachments of inbox lines, written as workgraph writes them (`attachments`: a path relative to the
// project root, its MIME type and size), given to the model by a real `nex --chat` process against the
// stub endpoint: a picture as an image, a text file as bounded text, anything else named; a path
// outside the workspace and the chat folder, or a link leading out, is refused, and the reply says so.
import assert from "node:assert/strict";
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { chatArgs, outbox, until } from "../support/chat-folder.ts";
import { makeSandbox, startNex } from "../support/cli.ts";
import { Jimp, JimpMime } from "../support/jimp.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { startStubEndpoint } from "../support/stub-endpoint.ts";
import { openaiText, status } from "../support/stub-scripts.ts";

async function setUp(options: { images: boolean }) {
  const stub = await startStubEndpoint({
    handler: (request) =>
      request.path.endsWith("/chat/completions") ? openaiText("seen") : status(404),
  });
  const box = makeSandbox();
  const chat = scratchDir("nex-chat-");
  if (options.images) {
    mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
    writeFileSync(
      join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json"),
      JSON.stringify({ models: { "stub-model": { images: true } } }),
    );
  }
  const stored = join(box.workspace, ".wg", "attachments");
  mkdirSync(stored, { recursive: true });
  const picture = await new Jimp({ width: 40, height: 30, color: 0x3366ccff }).getBuffer(
    JimpMime.png,
  );
  writeFileSync(join(stored, "shot.png"), picture);
  // An attached file's `@name` is its text, not a request to attach another file.
  writeFileSync(join(stored, "notes.md"), "# Notes\nthe build fails on line 42, see @inner.txt\n");
  writeFileSync(join(box.workspace, "inner.txt"), "INNER-FILE-TEXT\n");
  writeFileSync(join(stored, "blob.bin"), Buffer.from([0, 1, 2, 3, 0, 255, 254, 0]));
  // Secrets outside: a file beside the workspace, and a link in the workspace that leads to it.
  const outside = join(box.workspace, "..", "outside.txt");
  writeFileSync(outside, "SECRET-OUTSIDE\n");
  symlinkSync(outside, join(stored, "link.txt"));
  writeFileSync(join(chat, "pasted.txt"), "pasted into the chat folder\n");
  const args = chatArgs(chat, stub.url, box.dataDir);
  const env = { ...box.env, OPENAI_API_KEY: "k" };
  return { stub, box, chat, args, env, picture };
}

const at = (path: string, mime: string, size: number) => ({
  path,
  mime_type: mime,
  size_bytes: size,
});

function send(chat: string, id: number, content: string, attachments: unknown[]) {
  appendFileSync(
    join(chat, "inbox.jsonl"),
    `${JSON.stringify({ id, timestamp: "2026-11-27T03:00:00Z", role: "user", content, request_id: `r${id}`, attachments })}\n`,
  );
}

test("--chat attachments: a picture goes as an image, text as text, a binary is named; outside paths and links out are refused, and the reply says which", async () => {
  const { stub, box, chat, args, env, picture } = await setUp({ images: true });
  send(chat, 1, "look at these\n[Attached: shot.png]", [
    at(".wg/attachments/shot.png", "image/png", picture.length),
    at(".wg/attachments/notes.md", "text/markdown", 35),
    at(".wg/attachments/blob.bin", "application/octet-stream", 8),
    at(join(chat, "pasted.txt"), "text/plain", 28),
    at("../outside.txt", "text/plain", 15),
    at("/etc/passwd", "text/plain", 100),
    at(".wg/attachments/link.txt", "text/plain", 15),
    at(".wg/attachments/gone.txt", "text/plain", 1),
  ]);
  // Ten: the last two are over the count.
  send(
    chat,
    2,
    "many",
    Array.from({ length: 10 }, () => at(".wg/attachments/notes.md", "text/markdown", 35)),
  );
  // A message of attachments alone (no text) is a message.
  send(chat, 3, "", [at(".wg/attachments/notes.md", "text/markdown", 35)]);
  const nex = startNex(args, { cwd: box.workspace, env });
  try {
    await until(() => outbox(chat).length === 3, "three replies");
  } finally {
    nex.child.kill("SIGTERM");
  }
  const result = await nex.done;
  await stub.close();
  const bodies = stub.requestsTo("/v1/chat/completions").map((r) => JSON.stringify(r.body));
  const first = bodies[0] ?? "";
  assert.ok(
    first.includes(`data:image/png;base64,${picture.toString("base64")}`),
    "the picture is an image part",
  );
  assert.match(first, /the build fails on line 42/);
  assert.match(first, /pasted into the chat folder/);
  assert.match(first, /blob\.bin: application\/octet-stream, 8 B; not text or an image/);
  assert.doesNotMatch(first, /SECRET-OUTSIDE/);
  assert.doesNotMatch(first, /INNER-FILE-TEXT/);
  assert.doesNotMatch(first, /root:x:0/);
  assert.match(
    first,
    /attachment \.\.\/outside\.txt: not given to you: it is outside the workspace/,
  );
  const replies = outbox(chat);
  assert.equal(replies[0]?.role, "coordinator");
  const said = String(replies[0]?.content);
  assert.match(said, /^seen\n\n\[nex: 4 attachments were not given to the model:/);
  assert.match(said, /- \.\.\/outside\.txt: it is outside the workspace and the chat folder/);
  assert.match(said, /- \/etc\/passwd: it is outside the workspace/);
  assert.match(said, /- \.wg\/attachments\/link\.txt: it was not read: .*outside/);
  assert.match(said, /- \.wg\/attachments\/gone\.txt: there is no such file/);
  assert.doesNotMatch(said, /shot\.png|notes\.md|blob\.bin|pasted/);
  assert.match(String(replies[1]?.content), /2 more attachments: a message carries at most 8/);
  const notes = (body = "") => (body.match(/the build fails on line 42/g) ?? []).length;
  assert.equal(notes(bodies[1]) - notes(first), 8, "eight of the ten are given");
  assert.equal(replies[2]?.content, "seen");
  assert.match(bodies[2] ?? "", /the build fails on line 42/);
  assert.doesNotMatch(result.stderr, /skipped/);
});

test("--chat attachments: a model that takes no images gets the picture named, the reply says why; a long text file is cut to the window's share", async () => {
  const { stub, box, chat, args, env, picture } = await setUp({ images: false });
  writeFileSync(join(box.workspace, "big.log"), "log line\n".repeat(200_000));
  send(chat, 1, "see", [
    at(".wg/attachments/shot.png", "image/png", picture.length),
    at("big.log", "text/plain", 1_800_000),
  ]);
  const nex = startNex(args, { cwd: box.workspace, env });
  try {
    await until(() => outbox(chat).length === 1, "the reply");
  } finally {
    nex.child.kill("SIGTERM");
  }
  await nex.done;
  await stub.close();
  const body = JSON.stringify(stub.requestsTo("/v1/chat/completions")[0]?.body);
  assert.doesNotMatch(body, /image_url/);
  assert.match(body, /only the first [\d.]+ KiB of 1\.7 MiB are shown/);
  assert.ok(body.length < 400_000, `the text is bounded (${body.length} bytes sent)`);
  assert.match(
    String(outbox(chat)[0]?.content),
    /shot\.png: it is an image \(PNG, 40×30 px[^)]*\) and the model stub-model does not take images/,
  );
});

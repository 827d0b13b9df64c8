// Pictures reach models that take images, on both wires, and nothing is sent when a picture cannot go:
// a file named .png that is not one, or a model that reads text only. A resumed session still sends
// the picture, kept once beside the journal rather than in every record.
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { crc32, deflateSync } from "node:zlib";
import { makeSandbox, type Sandbox, startNex } from "../support/cli.ts";
import { Jimp, JimpMime } from "../support/jimp.ts";
import { type Script, startStubEndpoint } from "../support/stub-endpoint.ts";
import {
  anthropicText,
  anthropicToolUse,
  openaiText,
  openaiToolCall,
} from "../support/stub-scripts.ts";

/** A real PNG of `width`×`height` grey pixels. */
function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(rows)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

async function run(
  box: Sandbox,
  args: string[],
  scripts: Script[],
  wire: "openai" | "anthropic" = "openai",
) {
  const stub = await startStubEndpoint({ scripts });
  const endpoint =
    wire === "openai"
      ? ["--base-url", `${stub.url}/v1`]
      : ["--provider", "anthropic", "--base-url", stub.url];
  const result = await startNex([args[0] ?? "run", "--yes", ...endpoint, ...args.slice(1)], {
    cwd: box.workspace,
    env: { ...box.env, ANTHROPIC_API_KEY: "sk-ant-test" },
  }).done;
  await stub.close();
  const path = wire === "openai" ? "/v1/chat/completions" : "/v1/messages";
  const bodies = stub
    .requestsTo(path)
    .map((r) => r.body as { messages: Record<string, unknown>[] });
  return { result, bodies };
}

const shot = png(40, 30);
const shotData = shot.toString("base64");

test("an @image in the prompt goes to an OpenAI-wire vision model as an image_url data URL", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "shot.png"), shot);
  const { result, bodies } = await run(
    box,
    ["run", "--model", "gpt-4o-mini", "what is wrong in @shot.png?"],
    [openaiText("A grey box.")],
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /Attached image shot\.png \(PNG, 40×30 px/);
  const last = bodies[0]?.messages.at(-1) as { role: string; content: Record<string, unknown>[] };
  assert.equal(last.role, "user");
  assert.ok(Array.isArray(last.content), "the content is a list of parts");
  assert.match(JSON.stringify(last.content[0]), /what is wrong in @shot\.png\?/);
  assert.deepEqual(last.content[1], {
    type: "image_url",
    image_url: { url: `data:image/png;base64,${shotData}` },
  });
});

test("a bare path to a screenshot, quoted as a terminal pastes it, goes to an Anthropic model as an image block", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "Screen Shot.png"), shot);
  const { result, bodies } = await run(
    box,
    ["run", "--model", "claude-sonnet-4-5", "look at 'Screen Shot.png' please"],
    [anthropicText("Seen.")],
    "anthropic",
  );
  assert.equal(result.code, 0, result.stderr);
  const last = bodies[0]?.messages.at(-1) as { role: string; content: Record<string, unknown>[] };
  assert.equal(last.role, "user");
  // The conversation's last block also carries the prompt cache's marker.
  const image = last.content.find((block) => block.type === "image");
  assert.deepEqual(image?.source, { type: "base64", media_type: "image/png", data: shotData });
});

test("read_file on an image returns it: in the tool_result on Anthropic, as a following user message on OpenAI", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "diagram.png"), shot);
  const anthropic = await run(
    box,
    ["run", "--model", "claude-sonnet-4-5", "describe the diagram"],
    [anthropicToolUse({ name: "read_file", input: { path: "diagram.png" } }), anthropicText("ok")],
    "anthropic",
  );
  assert.equal(anthropic.result.code, 0, anthropic.result.stderr);
  const result = JSON.stringify(anthropic.bodies[1]?.messages.at(-1));
  assert.match(result, /"type":"tool_result"/);
  assert.ok(result.includes(`"data":"${shotData}"`), "the image is inside the tool result");

  const openai = await run(
    box,
    ["run", "--model", "gpt-4o", "describe the diagram"],
    [openaiToolCall({ name: "read_file", args: { path: "diagram.png" } }), openaiText("ok")],
  );
  assert.equal(openai.result.code, 0, openai.result.stderr);
  const messages = openai.bodies[1]?.messages ?? [];
  const tool = messages.at(-2) as { role: string; content: string };
  assert.equal(tool.role, "tool");
  assert.match(tool.content, /diagram\.png \(PNG, 40×30 px.*attached as an image/);
  const follow = JSON.stringify(messages.at(-1));
  assert.match(follow, /"role":"user"/);
  assert.ok(follow.includes(`data:image/png;base64,${shotData}`));
});

test("read_file on an image for a text-only model describes it: type, dimensions, size", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "diagram.png"), shot);
  const { result, bodies } = await run(
    box,
    ["run", "--model", "qwen3-coder", "describe the diagram"],
    [openaiToolCall({ name: "read_file", args: { path: "diagram.png" } }), openaiText("ok")],
  );
  assert.equal(result.code, 0, result.stderr);
  const body = JSON.stringify(bodies[1]);
  assert.match(
    body,
    /diagram\.png is an image \(PNG, 40×30 px, [^)]*\)\. The model of this session does not take images/,
  );
  assert.doesNotMatch(body, /image_url/);
});

test("a text file named .png is refused by its bytes, whatever its name: nothing is sent", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "fake.png"), "just some text\n");
  const { result, bodies } = await run(
    box,
    ["run", "--model", "gpt-4o", "what is in fake.png"],
    [openaiText("never")],
  );
  assert.notEqual(result.code, 0);
  assert.match(result.stderr, /fake\.png is not a PNG, JPEG, GIF or WebP image/);
  assert.equal(bodies.length, 0, "no request was sent");
});

test("a model that does not take images gets a clear message and nothing is sent; the config can say it does", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "shot.png"), shot);
  const refused = await run(
    box,
    ["run", "--model", "stub-model", "see @shot.png"],
    [openaiText("never")],
  );
  assert.notEqual(refused.result.code, 0);
  assert.match(
    refused.result.stderr,
    /shot\.png is an image, but the model stub-model does not take images, so nothing was sent/,
  );
  assert.match(refused.result.stderr, /"images": true/);
  assert.equal(refused.bodies.length, 0);

  const config = join(box.env.XDG_CONFIG_HOME ?? "", "nex", "config.json");
  const { mkdirSync } = await import("node:fs");
  mkdirSync(join(box.env.XDG_CONFIG_HOME ?? "", "nex"), { recursive: true });
  writeFileSync(config, JSON.stringify({ models: { "stub-model": { images: true } } }));
  const allowed = await run(
    box,
    ["run", "--model", "stub-model", "see @shot.png"],
    [openaiText("ok")],
  );
  assert.equal(allowed.result.code, 0, allowed.result.stderr);
  assert.match(JSON.stringify(allowed.bodies[0]), /image_url/);
});

test("an image is kept once beside the journal, by reference, and a resumed session sends it again", async () => {
  const box = makeSandbox();
  writeFileSync(join(box.workspace, "shot.png"), shot);
  const first = await run(
    box,
    ["run", "--model", "gpt-4o", "remember @shot.png"],
    [openaiText("Remembered.")],
  );
  assert.equal(first.result.code, 0, first.result.stderr);
  const journals = findFiles(box.dataDir, /\.jsonl$/);
  assert.equal(journals.length, 1);
  const journal = readFileSync(journals[0] ?? "", "utf8");
  assert.ok(!journal.includes(shotData), "the journal does not hold the image's bytes");
  const stored = findFiles(box.dataDir, /[0-9a-f]{64}\.png$/);
  assert.equal(stored.length, 1);
  assert.deepEqual(readFileSync(stored[0] ?? ""), shot);

  const resumed = await run(box, ["resume", "--last", "what was in it?"], [openaiText("Grey.")]);
  assert.equal(resumed.result.code, 0, resumed.result.stderr);
  const body = JSON.stringify(resumed.bodies[0]);
  assert.ok(body.includes(`data:image/png;base64,${shotData}`), "the image is sent again");
});

function findFiles(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && pattern.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

test("a picture larger than a model should get is scaled down, not refused: PNG stays PNG within 1568 px, and the prompt says so", async () => {
  const box = makeSandbox();
  // A 4000×3000 screenshot: too many pixels for the model to see whole, well within the file limits.
  const big = await new Jimp({ width: 4000, height: 3000, color: 0x3366ccff }).getBuffer(
    JimpMime.png,
  );
  writeFileSync(join(box.workspace, "big.png"), big);
  const { result, bodies } = await run(
    box,
    ["run", "--model", "gpt-4o-mini", "what is in @big.png?"],
    [openaiText("A blue field.")],
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stderr, /scaled down from PNG, 4000×3000 px.* to PNG, 1568×1176 px/);
  const last = bodies[0]?.messages.at(-1) as { content: Record<string, unknown>[] };
  const url = String((last.content[1]?.image_url as { url?: string } | undefined)?.url);
  assert.match(url, /^data:image\/png;base64,/);
  const sent = await Jimp.fromBuffer(Buffer.from(url.slice(url.indexOf(",") + 1), "base64"));
  assert.deepEqual([sent.width, sent.height], [1568, 1176]);
  assert.equal(
    readFileSync(join(box.workspace, "big.png")).equals(big),
    true,
    "the file is untouched",
  );
});

test("read_file on a large JPEG for a vision model returns it scaled down as JPEG, and says so", async () => {
  const box = makeSandbox();
  const photo = await new Jimp({ width: 3200, height: 2400, color: 0x884422ff }).getBuffer(
    JimpMime.jpeg,
  );
  writeFileSync(join(box.workspace, "photo.jpg"), photo);
  const { result, bodies } = await run(
    box,
    ["run", "--model", "gpt-4o-mini", "look at the photo"],
    [openaiToolCall({ name: "read_file", args: { path: "photo.jpg" } }), openaiText("Brown.")],
  );
  assert.equal(result.code, 0, result.stderr);
  const tool = bodies[1]?.messages.find((m) => m.role === "tool") as { content: string };
  assert.match(tool.content, /scaled down from JPEG, 3200×2400 px.* to JPEG, 1568×1176 px/);
  assert.match(JSON.stringify(bodies[1]?.messages), /data:image\/jpeg;base64,/);
});

test("a small file claiming a gigantic picture is refused from its header, never decoded", async () => {
  const box = makeSandbox();
  // A PNG header for 60000×60000 pixels (3.6 gigapixels) in a few dozen bytes.
  const header = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(header, 0);
  header.writeUInt32BE(13, 8);
  header.write("IHDR", 12, "latin1");
  header.writeUInt32BE(60000, 16);
  header.writeUInt32BE(60000, 20);
  writeFileSync(join(box.workspace, "bomb.png"), header);
  const { result, bodies } = await run(
    box,
    ["run", "--model", "gpt-4o-mini", "see @bomb.png"],
    [openaiText("never")],
  );
  assert.notEqual(result.code, 0);
  assert.equal(bodies.length, 0, "nothing was sent");
  assert.match(result.stderr, /too large for nex to scale down \(over 50 megapixels\)/);
});

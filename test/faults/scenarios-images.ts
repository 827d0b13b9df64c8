// Pictures in prompts and in read_file: known by their bytes, bounded, and sent only to models that
// take images; when one cannot go, nothing is sent and the user is told why.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runNex, type Sandbox } from "../support/cli.ts";
import { anthropicText, anthropicToolUse, openaiText } from "../support/stub-scripts.ts";
import {
  exitCode,
  exitNonZero,
  type FaultScenario,
  holds,
  requests,
  stderrSays,
  told,
} from "./scenario.ts";

/** The PNG signature and an IHDR with these dimensions: enough for nex, which never decodes pixels. */
function pngHeader(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b);
  b.writeUInt32BE(13, 8);
  b.write("IHDR", 12, "latin1");
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b[24] = 8;
  return b;
}

/** A JPEG's start: SOI, then a baseline frame header of 64×48. */
const jpeg = Buffer.from([
  0xff, 0xd8, 0xff, 0xc0, 0x00, 0x11, 0x08, 0x00, 0x30, 0x00, 0x40, 0x03, 0x01, 0x22, 0x00,
]);

const put = (name: string, bytes: Buffer) => (box: Sandbox) =>
  writeFileSync(join(box.workspace, name), bytes);

/** The config says stub-model takes images. */
const visionStub = (box: Sandbox) => {
  const dir = join(box.env.XDG_CONFIG_HOME ?? "", "nex");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({ models: { "stub-model": { images: true } } }),
  );
};

const bodyHas = (text: string) =>
  holds(`no request carries ${text}`, (o) => o.requests.some((r) => r.rawBody.includes(text)));
const noImageSent = holds("an image was sent", (o) =>
  o.requests.every((r) => !/image_url|"type":"image"/.test(r.rawBody)),
);

export const imageScenarios: FaultScenario[] = [
  {
    name: "a text file named shot.png in the prompt",
    wire: "openai",
    expect: "refused by its bytes, whatever its name; no request",
    files: { "shot.png": "not a picture\n" },
    setup: visionStub,
    task: "what is in @shot.png",
    scripts: [openaiText("never")],
    checks: [
      exitNonZero,
      requests(0),
      stderrSays(/shot\.png is not a PNG, JPEG, GIF or WebP image/),
    ],
  },
  {
    name: "a JPEG saved as photo.png",
    wire: "openai",
    expect: "sent as image/jpeg: the bytes decide, not the name",
    setup: (box) => {
      visionStub(box);
      put("photo.png", jpeg)(box);
    },
    task: "describe photo.png",
    scripts: [openaiText("A photo.")],
    checks: [
      exitCode(0),
      requests(1),
      bodyHas(`data:image/jpeg;base64,${jpeg.toString("base64")}`),
    ],
  },
  {
    name: "a 9000 px wide PNG header with no picture behind it, in the prompt",
    wire: "openai",
    expect:
      "too large to send as it is, and it cannot be decoded to scale it: refused with its size and what to do; no request",
    setup: (box) => {
      visionStub(box);
      put("wide.png", pngHeader(9000, 100))(box);
    },
    task: "look at @wide.png",
    scripts: [openaiText("never")],
    checks: [exitNonZero, requests(0), stderrSays(/9000×100 px.*could not be decoded/)],
  },
  {
    name: "a picture for a model that reads text only",
    wire: "openai",
    expect: "nothing sent; the message says the model does not take images and how to say it does",
    setup: put("shot.png", pngHeader(10, 10)),
    task: "see @shot.png",
    scripts: [openaiText("never")],
    checks: [exitNonZero, requests(0), stderrSays(/does not take images.*"images": true/s)],
  },
  {
    name: "read_file on a 9000 px PNG header with no picture behind it, for a vision model",
    wire: "anthropic",
    expect: "the model is told it is too large; no image is sent",
    setup: put("wide.png", pngHeader(9000, 100)),
    scripts: [
      anthropicToolUse({ name: "read_file", input: { path: "wide.png" } }),
      anthropicText("ok"),
    ],
    checks: [
      exitCode(0),
      told(/wide\.png is an image \(PNG, 9000×100 px.*too large to send/),
      noImageSent,
    ],
  },
  {
    name: "a command file whose command prints a .png name that is not a picture",
    wire: "openai",
    expect:
      "pictures are looked for in what the user typed only: the command runs and the prompt is sent",
    files: {
      "logo.png": "text, not a picture\n",
      ".claude/commands/shots.md": "!echo see logo.png\n",
    },
    // The user approved the project's command (it runs a shell line) with `nex commands approve`.
    setup: async (box) => {
      visionStub(box);
      const approved = await runNex(["commands", "approve", "shots"], {
        cwd: box.workspace,
        env: box.env,
      });
      if (approved.code !== 0) throw new Error(approved.stdout + approved.stderr);
    },
    task: "/shots",
    scripts: [openaiText("ok")],
    checks: [exitCode(0), requests(1), bodyHas("see logo.png"), noImageSent],
  },
];

import assert from "node:assert/strict";
import { test } from "node:test";
import { imageForModel, imageHeader } from "../../src/tools/files/index.ts";

test("images are known by their first bytes, with their dimensions: PNG, JPEG, GIF, WebP (VP8, VP8L, VP8X)", () => {
  const png = Buffer.alloc(24);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
  png.write("IHDR", 12, "latin1");
  png.writeUInt32BE(640, 16);
  png.writeUInt32BE(480, 20);
  assert.deepEqual(imageHeader(png), { mediaType: "image/png", width: 640, height: 480 });

  // SOI, an APP0 segment, then SOF2 (progressive) with height 300 and width 200.
  const jpeg = Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, 0xc2, 0x00, 0x11, 0x08, 0x01, 0x2c, 0x00,
    0xc8, 0x03,
  ]);
  assert.deepEqual(imageHeader(jpeg), { mediaType: "image/jpeg", width: 200, height: 300 });

  const gif = Buffer.from("GIF89a\x0a\x00\x14\x00", "latin1");
  assert.deepEqual(imageHeader(gif), { mediaType: "image/gif", width: 10, height: 20 });

  const webp = (chunk: string, fill: (b: Buffer) => void) => {
    const b = Buffer.alloc(32);
    b.write("RIFF", 0, "latin1");
    b.write("WEBP", 8, "latin1");
    b.write(chunk, 12, "latin1");
    fill(b);
    return b;
  };
  const lossy = webp("VP8 ", (b) => {
    b.writeUInt16LE(321, 26);
    b.writeUInt16LE(123, 28);
  });
  assert.deepEqual(imageHeader(lossy), { mediaType: "image/webp", width: 321, height: 123 });
  // VP8L packs width-1 and height-1 in 14 bits each: 99 and 49.
  const lossless = webp("VP8L", (b) => {
    const bits = 99 | (49 << 14);
    b.writeUInt32LE(bits, 21);
  });
  assert.deepEqual(imageHeader(lossless), { mediaType: "image/webp", width: 100, height: 50 });
  const extended = webp("VP8X", (b) => {
    b.writeUIntLE(1919, 24, 3);
    b.writeUIntLE(1079, 27, 3);
  });
  assert.deepEqual(imageHeader(extended), { mediaType: "image/webp", width: 1920, height: 1080 });
});

test("text, a truncated header and an empty file are not images", () => {
  assert.equal(imageHeader(Buffer.from("\x89PNG but really text\n")), null);
  assert.equal(imageHeader(Buffer.from([0xff, 0xd8, 0xff])), null);
  assert.equal(imageHeader(Buffer.alloc(0)), null);
});

test("an image over 8000 px a side or over 5 MiB is refused with what to do; nothing is scaled silently", () => {
  const png = Buffer.alloc(24);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(png);
  png.write("IHDR", 12, "latin1");
  png.writeUInt32BE(9000, 16);
  png.writeUInt32BE(100, 20);
  const wide = imageForModel(png);
  assert.equal(wide.ok, false);
  assert.match(wide.ok ? "" : wide.reason, /9000×100 px.*at most 8000 px a side.*scaled-down copy/);
  png.writeUInt32BE(100, 16);
  const heavy = imageForModel(png, 6 * 2 ** 20);
  assert.match(heavy.ok ? "" : heavy.reason, /too large to send .*limit is 5/);
  assert.equal(imageForModel(png).ok, true);
});

// Images are known by their first bytes, never by their name: a `.png` that is text is refused, a
// screenshot saved without an extension is still an image. The header also gives the dimensions, so
// limits are checked and tokens estimated without decoding the picture.
import type { ImageMediaType, ImagePart } from "../../protocol/index.ts";
import { formatSize } from "../../protocol/index.ts";

/** Most bytes of one image: Anthropic's limit per image; OpenAI's is larger. */
export const MAX_IMAGE_BYTES = 5 * 2 ** 20;
/** Longest side an endpoint takes (Anthropic refuses more than 8000 px). */
export const MAX_IMAGE_SIDE = 8000;

/** What an image's header says. */
export interface ImageHeader {
  mediaType: ImageMediaType;
  width: number;
  height: number;
}

/** Names that promise an image: a file named so must be one. */
export const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;

const FORMAT: Record<ImageMediaType, string> = {
  "image/png": "PNG",
  "image/jpeg": "JPEG",
  "image/gif": "GIF",
  "image/webp": "WebP",
};

/** "PNG" for image/png. */
export function formatName(mediaType: ImageMediaType): string {
  return FORMAT[mediaType];
}

/** The file extension for a media type, for stored copies. */
export function extensionOf(mediaType: ImageMediaType): string {
  return mediaType === "image/jpeg" ? "jpg" : mediaType.slice("image/".length);
}

/** The type and size of a PNG, JPEG, GIF or WebP from its first bytes, or null when it is none of them. */
export function imageHeader(bytes: Uint8Array): ImageHeader | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length >= 24 && b.subarray(0, 8).equals(PNG) && b.toString("latin1", 12, 16) === "IHDR")
    return sized("image/png", b.readUInt32BE(16), b.readUInt32BE(20));
  if (b.length >= 10 && /^GIF8[79]a$/.test(b.toString("latin1", 0, 6)))
    return sized("image/gif", b.readUInt16LE(6), b.readUInt16LE(8));
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return jpegHeader(b);
  if (
    b.length >= 30 &&
    b.toString("latin1", 0, 4) === "RIFF" &&
    b.toString("latin1", 8, 12) === "WEBP"
  )
    return webpHeader(b);
  return null;
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function sized(mediaType: ImageMediaType, width: number, height: number): ImageHeader | null {
  return width > 0 && height > 0 ? { mediaType, width, height } : null;
}

// The size is in the first start-of-frame segment (SOF0..SOF15 less DHT, JPG, DAC); walk the segments.
function jpegHeader(b: Buffer): ImageHeader | null {
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1] ?? 0;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    const length = b.readUInt16BE(at + 2);
    if (length < 2) return null;
    const frame = marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker);
    if (frame) {
      if (at + 9 > b.length) return null;
      return sized("image/jpeg", b.readUInt16BE(at + 7), b.readUInt16BE(at + 5));
    }
    at += 2 + length;
  }
  return null;
}

function webpHeader(b: Buffer): ImageHeader | null {
  const chunk = b.toString("latin1", 12, 16);
  if (chunk === "VP8 ")
    return sized("image/webp", b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  if (chunk === "VP8L") {
    const [b0 = 0, b1 = 0, b2 = 0, b3 = 0] = [b[21], b[22], b[23], b[24]];
    return sized(
      "image/webp",
      1 + (b0 | ((b1 & 0x3f) << 8)),
      1 + ((b1 >> 6) | (b2 << 2) | ((b3 & 0x0f) << 10)),
    );
  }
  if (chunk === "VP8X")
    return sized("image/webp", 1 + b.readUIntLE(24, 3), 1 + b.readUIntLE(27, 3));
  return null;
}

/** An image ready for the model, or why it cannot be sent (completes "`name` ..."). */
export type ImageCheck =
  | { ok: true; part: ImagePart }
  | { ok: false; notImage: boolean; reason: string };

/**
 * Checks a file's bytes as an image for the model: its type by magic bytes, then the limits. nex has
 * no image library to scale a picture down, so one over the limits is refused with what to do.
 */
export function imageForModel(bytes: Buffer, size = bytes.length): ImageCheck {
  const header = imageHeader(bytes);
  if (!header)
    return {
      ok: false,
      notImage: true,
      reason:
        "is not a PNG, JPEG, GIF or WebP image (its first bytes are not an image header, whatever its name says)",
    };
  const what = describeImage(header, size);
  if (size > MAX_IMAGE_BYTES)
    return {
      ok: false,
      notImage: false,
      reason: `is too large to send (${what}; the limit is ${formatSize(MAX_IMAGE_BYTES)}). Save a smaller copy (e.g. scaled down or as JPEG) and use that`,
    };
  if (Math.max(header.width, header.height) > MAX_IMAGE_SIDE)
    return {
      ok: false,
      notImage: false,
      reason: `is too large to send (${what}; endpoints take at most ${MAX_IMAGE_SIDE} px a side). Save a scaled-down copy and use that`,
    };
  return {
    ok: true,
    part: { ...header, data: bytes.toString("base64"), bytes: bytes.length },
  };
}

/** "PNG, 800×600 px, 12.3 KiB". */
export function describeImage(header: ImageHeader, size: number): string {
  return `${formatName(header.mediaType)}, ${header.width}×${header.height} px, ${formatSize(size)}`;
}

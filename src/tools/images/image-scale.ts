// Pictures larger than a model should get are scaled down rather than refused: a phone photo or a
// 4K screenshot costs a model thousands of tokens past what it can see (Anthropic scales anything
// over 1568 px a side down on its side, after charging for the upload; OpenAI scales to 2048 px).
// jimp (pure JavaScript: its core, PNG, JPEG and resize) loads only when a picture needs it. The header's dimensions decide before
// anything is decoded, so a small file that claims a huge picture (a decompression bomb) is refused.
import type { ImagePart } from "../../protocol/index.ts";
import { formatSize } from "../../protocol/index.ts";
import {
  describeImage,
  type ImageCheck,
  imageForModel,
  imageHeader,
  MAX_IMAGE_BYTES,
} from "./image-file.ts";

/** The longest side a picture is sent with. */
export const SEND_SIDE = 1568;
/** Most pixels nex decodes to scale a picture (about 200 MB while it does). */
export const MAX_DECODE_PIXELS = 50_000_000;
/** Most bytes of a picture nex reads to scale it down. */
export const MAX_SCALE_INPUT_BYTES = 64 * 2 ** 20;

/** An image ready for the model, and what was done to it, if anything; or why it cannot be sent. */
export type FittedImage =
  | { ok: true; part: ImagePart; scaled: string | null }
  | Extract<ImageCheck, { ok: false }>;

/**
 * The picture in `bytes` as the model should get it: as it is when it is within the limits, else
 * scaled to at most `SEND_SIDE` px a side (PNG stays PNG, JPEG stays JPEG). `size` is the file's whole size when `bytes` may be only its start.
 */
export async function fitImage(bytes: Buffer, size = bytes.length): Promise<FittedImage> {
  const header = imageHeader(bytes);
  const asIs = imageForModel(bytes, size);
  if (!header) return asIs as FittedImage;
  const side = Math.max(header.width, header.height);
  if (asIs.ok && side <= SEND_SIDE) return { ok: true, part: asIs.part, scaled: null };
  const what = describeImage(header, size);
  const refuse = (why: string): FittedImage => ({
    ok: false,
    notImage: false,
    reason: `is too large to send (${what}) and ${why}. Save a smaller copy and use that`,
  });
  if (header.width * header.height > MAX_DECODE_PIXELS)
    return refuse(`too large for nex to scale down (over ${MAX_DECODE_PIXELS / 1e6} megapixels)`);
  if (size > bytes.length || size > MAX_SCALE_INPUT_BYTES)
    return refuse(
      `too large a file for nex to scale down (over ${formatSize(MAX_SCALE_INPUT_BYTES)})`,
    );
  // A WebP nex cannot decode; a GIF may hold hundreds of frames, each decoded whole: within the
  // limits either goes as it is, over them it is refused.
  if (header.mediaType === "image/webp" || header.mediaType === "image/gif")
    return asIs.ok
      ? { ok: true, part: asIs.part, scaled: null }
      : refuse(`nex does not scale ${header.mediaType === "image/gif" ? "GIF" : "WebP"} pictures`);
  const scaled = await scaleDown(bytes, header.mediaType === "image/jpeg").catch(() => null);
  if (!scaled) return refuse("it could not be decoded to scale it down");
  const check = imageForModel(scaled.bytes);
  if (!check.ok) return refuse("even scaled down it stays over the limits");
  const to = describeImage(check.part, scaled.bytes.length);
  return { ok: true, part: check.part, scaled: `scaled down from ${what} to ${to}` };
}

async function scaleDown(bytes: Buffer, jpeg: boolean): Promise<{ bytes: Buffer } | null> {
  const Jimp = await scaler();
  const image = await Jimp.fromBuffer(bytes);
  image.scaleToFit({ w: SEND_SIDE, h: SEND_SIDE });
  const encoded = jpeg
    ? await image.getBuffer("image/jpeg", { quality: 85 })
    : await image.getBuffer("image/png");
  // A PNG photo may stay large as PNG: JPEG is what fits it then.
  if (encoded.length > MAX_IMAGE_BYTES && !jpeg)
    return { bytes: await image.getBuffer("image/jpeg", { quality: 85 }) };
  return { bytes: encoded };
}

// jimp's parts that scaling a PNG or JPEG needs, not the whole of jimp (two dozen plugins and
// formats nex never uses, each with its own copy of a validation library).
async function scaler() {
  const [{ createJimp }, { default: png }, { default: jpeg }, { methods: resize }] =
    await Promise.all([
      import("@jimp/core"),
      import("@jimp/js-png"),
      import("@jimp/js-jpeg"),
      import("@jimp/plugin-resize"),
    ]);
  return createJimp({ formats: [png, jpeg], plugins: [resize] });
}

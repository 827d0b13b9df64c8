// Pictures: what a file's first bytes say it is (PNG, JPEG, GIF, WebP), and the picture as a model
// should get it, scaled down when too large (that part loads with the first picture).
import type { FittedImage } from "./image-scale.ts";

export {
  describeImage,
  extensionOf,
  IMAGE_NAME,
  type ImageCheck,
  type ImageHeader,
  imageForModel,
  imageHeader,
  MAX_IMAGE_BYTES,
} from "./image-file.ts";
export type { FittedImage } from "./image-scale.ts";

/** A picture as a model should get it, scaled down when too large (loads with the first picture). */
export async function fitImage(bytes: Buffer, size?: number): Promise<FittedImage> {
  return (await import("./image-scale.ts")).fitImage(bytes, size);
}

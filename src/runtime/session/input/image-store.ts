// A session's images are kept once, as files named by their digest under `<dataDir>/images/<session>`;
// journal records name them, so a picture is not copied into every record and a resume finds it.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ImagePart, Message } from "../../../protocol/index.ts";
import { extensionOf } from "../../../tools/index.ts";

/** Stores and finds the images of one session. */
export interface ImageStore {
  /** The message as the journal keeps it: each image by reference (inline if it could not be stored). */
  stored(message: Message): Message;
  /** Messages read back from the journal with their images' bytes; a picture whose file is gone becomes a note. */
  loaded(messages: Message[]): { messages: Message[]; warnings: string[] };
}

const REF = /^[0-9a-f]{64}\.(png|jpg|gif|webp)$/;

/** The image store in `dir` (created on the first image). */
export function createImageStore(dir: string): ImageStore {
  const store = (image: ImagePart): ImagePart => {
    if (image.data === "") return image;
    const ref = `${createHash("sha256").update(image.data).digest("hex")}.${extensionOf(image.mediaType)}`;
    try {
      const path = join(dir, ref);
      if (!existsSync(path)) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
        writeFileSync(path, Buffer.from(image.data, "base64"), { mode: 0o600 });
      }
      return { ...image, data: "", ref };
    } catch {
      // Kept inline (at most the 5 MiB an image may have): the record still resumes whole.
      return image;
    }
  };
  const load = (image: ImagePart): ImagePart | null => {
    if (image.data !== "") return image;
    if (!image.ref || !REF.test(image.ref)) return null;
    try {
      return { ...image, data: readFileSync(join(dir, image.ref)).toString("base64") };
    } catch {
      return null;
    }
  };
  return {
    stored(message) {
      if (message.type === "assistant" || !message.images?.length) return message;
      return { ...message, images: message.images.map(store) };
    },
    loaded(messages) {
      const warnings: string[] = [];
      const out = messages.map((message): Message => {
        if (message.type === "assistant" || !message.images?.length) return message;
        const images = message.images.map(load);
        const kept = images.filter((image): image is ImagePart => image !== null);
        if (kept.length === images.length) return { ...message, images: kept };
        const lost = images.length - kept.length;
        warnings.push(
          `${lost} image(s) of this session are no longer in ${dir}; the model is told they are gone.`,
        );
        const note = `\n\n[nex] ${lost} image(s) sent here are no longer stored and were not resent.`;
        return message.type === "user"
          ? { ...message, text: message.text + note, images: kept }
          : { ...message, content: message.content + note, images: kept };
      });
      return { messages: out, warnings };
    },
  };
}

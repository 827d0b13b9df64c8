// The files a chat message carries (workgraph's `attachments`: a path relative to the project root,
// its MIME type and size), as the model gets them: a picture as an image when the model takes images,
// a text file as bounded text, anything else named with its type and size. A file is read only from
// inside the chat folder or the workspace, through the workspace guard (a symlink that leads out, or
// into nex's own data, is refused), so an inbox line cannot make nex show the model a file elsewhere.
// Every file not given says why, for the model and for the reply.
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import type { ImagePart } from "../../protocol/index.ts";
import { formatSize } from "../../protocol/index.ts";
import {
  describeImage,
  fitImage,
  imageHeader,
  readWorkspaceOwnFile,
  resultCapForWindow,
} from "../../tools/index.ts";
import { acceptsImages as modelTakesImages, type NexConfig } from "../config/index.ts";
import { consentDir, consentPlace, realPathOf } from "../consent/index.ts";

/** One attachment as the inbox line names it. */
export interface AttachmentRef {
  path: string;
  mimeType?: string;
  sizeBytes?: number;
}

export interface AttachmentContext {
  /** The session's config: its workspace (a relative path is the project root's, as workgraph
   * writes it), its models (which take images) and where nex keeps its own data. */
  config: NexConfig;
  env: Record<string, string | undefined>;
  /** The chat folder: files in it may be attached too, wherever it lies. */
  chatDir: string;
  /** The session's model now, and its window in tokens (the text attached is bounded by it). */
  model: string;
  window: number;
}

/** What the model gets, and what was not given (one line each, for the reply). */
export interface GivenAttachments {
  text: string;
  images: ImagePart[];
  refused: string[];
}

/** The most attachments of one message read; the rest are named as not given. */
export const MAX_ATTACHMENTS = 8;
/** The most bytes of one picture read (a larger one is refused before it is read). */
const IMAGE_READ_BYTES = 20 * 2 ** 20;
/** Images of one message, in bytes as sent. */
const IMAGE_TOTAL_BYTES = 20 * 2 ** 20;
/** Bytes read of a file to learn what it is, when it is not a picture. */
const SNIFF_BYTES = 8 * 1024;

export async function readMessageAttachments(
  refs: readonly AttachmentRef[],
  ctx: AttachmentContext,
): Promise<GivenAttachments> {
  const blocks: string[] = [];
  const images: ImagePart[] = [];
  const refused: string[] = [];
  const acceptsImages = modelTakesImages(ctx.model, ctx.config.models[ctx.model]);
  const roots = rootsOf(ctx);
  let textLeft = 2 * resultCapForWindow(ctx.window);
  let imageLeft = IMAGE_TOTAL_BYTES;
  for (const [index, ref] of refs.entries()) {
    // A path is shown as given, but never at a length that could flood the reply.
    const name = ref.path.length > 200 ? `${ref.path.slice(0, 200)}…` : ref.path;
    const no = (why: string) => {
      refused.push(`${name}: ${why}`);
      blocks.push(`[attachment ${name}: not given to you: ${why}]`);
    };
    if (index >= MAX_ATTACHMENTS) {
      const more = refs.length - MAX_ATTACHMENTS;
      refused.push(
        `${more} more attachment${more === 1 ? "" : "s"}: a message carries at most ${MAX_ATTACHMENTS}`,
      );
      blocks.push(
        `[${more} more attachment${more === 1 ? "" : "s"} not given to you: a message carries at most ${MAX_ATTACHMENTS}]`,
      );
      break;
    }
    const place = placeOf(ref.path, roots);
    if (typeof place === "string") {
      no(place);
      continue;
    }
    const sniff = await readWorkspaceOwnFile({ ...place, limit: SNIFF_BYTES });
    if (sniff.type === "missing") {
      no("there is no such file");
      continue;
    }
    if (sniff.type === "refused") {
      no(`it was not read: ${sniff.reason}`);
      continue;
    }
    const header = imageHeader(sniff.bytes);
    const kind = `${ref.mimeType ?? (header ? header.mediaType : "unknown type")}, ${formatSize(sniff.size)}`;
    if (header) {
      if (!acceptsImages) {
        no(
          `it is an image (${describeImage(header, sniff.size)}) and the model ${ctx.model} does not take images (if it does, set "images": true for it under "models" in the config)`,
        );
        continue;
      }
      if (sniff.size > IMAGE_READ_BYTES) {
        no(
          `it is an image of ${formatSize(sniff.size)}, over the ${formatSize(IMAGE_READ_BYTES)} nex reads`,
        );
        continue;
      }
      const read = await readWorkspaceOwnFile({ ...place, limit: IMAGE_READ_BYTES });
      if (read.type !== "read") {
        no(read.type === "missing" ? "it is gone" : `it was not read: ${read.reason}`);
        continue;
      }
      const fitted = await fitImage(read.bytes, read.size);
      if (!fitted.ok) {
        no(`it ${fitted.reason}`);
        continue;
      }
      if (fitted.part.bytes > imageLeft) {
        no(`the message's images are over ${formatSize(IMAGE_TOTAL_BYTES)} together`);
        continue;
      }
      imageLeft -= fitted.part.bytes;
      images.push(fitted.part);
      blocks.push(
        `[attachment ${name}: image ${images.length} of this message (${describeImage(fitted.part, fitted.part.bytes)}${fitted.scaled ? `; ${fitted.scaled}` : ""})]`,
      );
      continue;
    }
    if (!isText(sniff.bytes, sniff.truncated)) {
      // Named, with what it is: the model can say it cannot read it, or ask for it another way.
      blocks.push(
        `[attachment ${name}: ${kind}; not text or an image, so its content is not shown]`,
      );
      continue;
    }
    if (textLeft <= 0) {
      no(`the message's text attachments already fill what the window allows`);
      continue;
    }
    const read = await readWorkspaceOwnFile({ ...place, limit: textLeft });
    if (read.type !== "read") {
      no(read.type === "missing" ? "it is gone" : `it was not read: ${read.reason}`);
      continue;
    }
    textLeft -= read.bytes.length;
    const cut = read.truncated
      ? `\n(only the first ${formatSize(read.bytes.length)} of ${formatSize(read.size)} are shown)`
      : "";
    blocks.push(
      `<attachment path="${name}" type="${kind}">\n${read.text}${read.text.endsWith("\n") ? "" : "\n"}</attachment>${cut}`,
    );
  }
  return {
    text: blocks.length > 0 ? `\n\nAttachments of this message:\n${blocks.join("\n")}` : "",
    images,
    refused,
  };
}

interface Roots {
  workspace: string;
  chatDir: string;
  /** nex's own data, config and consent: never read. */
  privatePaths: string[];
}

function rootsOf(ctx: AttachmentContext): Roots {
  const { config, env } = ctx;
  const consent = consentDir(
    consentPlace({ env, workspace: config.workspace, writable: config.sandbox.writable ?? [] }),
  );
  const configDir = config.configPath ? [dirname(config.configPath)] : [];
  return {
    workspace: realPathOf(config.workspace),
    chatDir: realPathOf(ctx.chatDir),
    privatePaths: [config.dataDir, consent, ...configDir],
  };
}

/** Where a path may be read from (the root whose guard reads it), or why it may not. */
function placeOf(
  name: string,
  roots: Roots,
): { workspace: string; name: string; privatePaths: string[] } | string {
  if (name.trim() === "" || name.includes("\u0000")) return "the path is empty or not a path";
  const abs = resolve(roots.workspace, name);
  const within = (root: string) => {
    const rel = relative(root, abs);
    return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
  };
  // The chat folder first: inside the workspace it is one of nex's private paths for the tools.
  if (within(roots.chatDir))
    return { workspace: roots.chatDir, name: relative(roots.chatDir, abs), privatePaths: [] };
  if (within(roots.workspace))
    return {
      workspace: roots.workspace,
      name: relative(roots.workspace, abs),
      privatePaths: roots.privatePaths,
    };
  return "it is outside the workspace and the chat folder, where nex reads no attachment";
}

/** Text: no NUL byte, and UTF-8 throughout (a character cut at the end of a sample is fine). */
function isText(bytes: Buffer, truncated: boolean): boolean {
  if (bytes.includes(0)) return false;
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
  const bad = (text.match(/\uFFFD/g) ?? []).length;
  return bad === 0 || (truncated && bad <= 1 && text.endsWith("\uFFFD"));
}

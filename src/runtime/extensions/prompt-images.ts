// Paths to pictures in a typed prompt (`@shot.png`, a bare `docs/shot.png`, a screenshot dragged in
// as '/home/me/Desktop/Screen Shot.png') become image parts for a model that takes images.
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import type { ImagePart } from "../../protocol/index.ts";
import {
  describeImage,
  fitImage,
  IMAGE_NAME,
  imageHeader,
  type OwnFileRead,
  readOwnFile,
  readWorkspaceOwnFile,
} from "../../tools/index.ts";

/** What finding images in a prompt needs. */
export interface ImageContext {
  workspace: string;
  allowedPaths: string[];
  privatePaths: string[];
  /** The session's model, and whether it takes images. */
  model: string;
  acceptsImages: boolean;
}

/** The images of a prompt, the names they came from, and notes; or why nothing is sent. */
export type PromptImages =
  | { ok: true; images: ImagePart[]; names: Set<string>; listing: string; notes: string[] }
  | { ok: false; message: string };

// A path after a space or at the start: `@name`, 'quoted name', "quoted name", or a word with `\ `
// escapes (as terminals paste dragged files). Trailing punctuation belongs to the sentence.
const CANDIDATE =
  /(^|\s)(@?)(?:'([^'\n]+)'|"([^"\n]+)"|((?:\\ |[^\s`'"<>])+?))(?=[.,;:!?)\]]*(?:\s|$))/g;
// Read one byte past the limit, so a file over it is known as such.
// Pictures larger than a model takes are scaled down, up to this many bytes read.
const READ_LIMIT = 64 * 2 ** 20 + 1;

/**
 * Finds the images a prompt names. A named file that exists and is a picture (by its first bytes) is
 * attached; a file named like a picture that is not one, a picture too large, or any picture for a
 * model that does not take images, sends nothing, with the reason.
 */
export async function findPromptImages(text: string, ctx: ImageContext): Promise<PromptImages> {
  const images: ImagePart[] = [];
  const names = new Set<string>();
  const lines: string[] = [];
  const seen = new Set<string>();
  for (const match of text.matchAll(CANDIDATE)) {
    const mention = match[2] === "@";
    const typed = match[3] ?? match[4] ?? match[5] ?? "";
    const name = typed.replace(/\\ /g, " ");
    // A bare word is a picture's path only when named like one; `@name` may be any file.
    if (!name || (!mention && !IMAGE_NAME.test(name))) continue;
    const read = await readImageFile(name, ctx);
    if (read.type === "missing") continue;
    if (read.type === "refused") {
      // A folder, or a file outside the workspace that is not a picture: the text attachment decides.
      if (!IMAGE_NAME.test(name)) continue;
      return { ok: false, message: `${name} was not attached: ${read.reason}. Nothing was sent.` };
    }
    const checked = await fitImage(read.bytes, read.size);
    if (!checked.ok && checked.notImage) {
      if (mention && !IMAGE_NAME.test(name)) continue;
      return {
        ok: false,
        message: `${name} ${checked.reason}; nothing was sent. Attach a real image, or write the name in \`backquotes\` to mention it without attaching.`,
      };
    }
    names.add(typed);
    if (seen.has(read.abs)) continue;
    seen.add(read.abs);
    if (!ctx.acceptsImages)
      return {
        ok: false,
        message: `${name} is an image, but the model ${ctx.model} does not take images, so nothing was sent. Switch to a model that does (/model), or remove the path; if ${ctx.model} does take images, set "images": true for it under "models" in the config file.`,
      };
    if (!checked.ok) return { ok: false, message: `${name} ${checked.reason}. Nothing was sent.` };
    images.push(checked.part);
    const what = describeImage(checked.part, checked.part.bytes);
    lines.push(`- ${name} (${what}${checked.scaled ? `; ${checked.scaled}` : ""})`);
  }
  return {
    ok: true,
    images,
    names,
    listing: lines.length > 0 ? `\n\nImages attached, in this order:\n${lines.join("\n")}` : "",
    notes: lines.map((line) => `Attached image ${line.slice(2)}.`),
  };
}

type ImageRead =
  | { type: "missing" }
  | { type: "refused"; reason: string }
  | { type: "read"; bytes: Buffer; size: number; abs: string };

/**
 * A workspace file through the guard. A path outside it that the user typed (a screenshot on the
 * desktop) is read too, but only a picture is ever sent from there, and never one of nex's own files.
 */
async function readImageFile(name: string, ctx: ImageContext): Promise<ImageRead> {
  const expanded = name.startsWith("~/") ? resolve(homedir(), name.slice(2)) : name;
  const abs = resolve(ctx.workspace, expanded);
  let real: string;
  try {
    real = realpathSync(abs);
  } catch {
    return { type: "missing" };
  }
  const inside = (root: string) => {
    let rootReal = root;
    try {
      rootReal = realpathSync(root);
    } catch {}
    const rel = relative(rootReal, real);
    return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
  };
  if (ctx.privatePaths.some(inside))
    return { type: "refused", reason: "it is in nex's own data folder" };
  const read: OwnFileRead = inside(ctx.workspace)
    ? await readWorkspaceOwnFile({
        workspace: ctx.workspace,
        name: expanded,
        limit: READ_LIMIT,
        allowedPaths: ctx.allowedPaths,
        privatePaths: ctx.privatePaths,
      })
    : readOwnFile(real, READ_LIMIT);
  if (read.type !== "read") return read;
  if (!inside(ctx.workspace) && !IMAGE_NAME.test(real) && !imageHeader(read.bytes))
    return { type: "refused", reason: "it is outside the workspace" };
  return { type: "read", bytes: read.bytes, size: read.size, abs: real };
}

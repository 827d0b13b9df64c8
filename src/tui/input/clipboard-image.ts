// Ctrl-V: the clipboard's image, read with the platform's own tool (wl-paste on Wayland, xclip on
// X11, osascript on macOS), saved to a private temporary folder and put in the prompt as a path, so
// it is attached as any picture path typed there is (the model must take images; large ones scaled).
// Loaded on the first Ctrl-V.
import { execFile } from "node:child_process";
import { accessSync, constants, rmSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** An image larger than this is refused: a model takes a few MiB at most, and memory stays bounded. */
const MAX_IMAGE_BYTES = 64 * 2 ** 20;
const TIMEOUT_MS = 5000;

/** Where the image went, or why there is none, in words for the user. */
export type ClipboardImage = { ok: true; path: string } | { ok: false; message: string };

const TYPES: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

function onPath(program: string, env: NodeJS.ProcessEnv): boolean {
  // A few stats at a key press.
  return (env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && canRun(join(dir, program)));
}

function canRun(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function output(program: string, args: string[]): Promise<Buffer> {
  const { stdout } = await run(program, args, {
    encoding: "buffer",
    maxBuffer: MAX_IMAGE_BYTES,
    timeout: TIMEOUT_MS,
  });
  return stdout;
}

/** The tool that reads this system's clipboard, or null (with what to install) when there is none. */
function reader(env: NodeJS.ProcessEnv, platform: NodeJS.Platform) {
  if (platform === "darwin") return { kind: "macos" as const };
  if (env.WAYLAND_DISPLAY && onPath("wl-paste", env)) return { kind: "wayland" as const };
  if (env.DISPLAY && onPath("xclip", env)) return { kind: "x11" as const };
  return null;
}

const NO_TOOL =
  "Ctrl-V pastes an image from the clipboard, but no clipboard tool was found: install wl-clipboard (Wayland) or xclip (X11), or type the image's path in the prompt instead.";

function noImage(types: string[]): ClipboardImage {
  const has = types.length > 0 ? ` (it holds ${types.slice(0, 3).join(", ")})` : "";
  return {
    ok: false,
    message: `The clipboard holds no image${has}. Copy an image first, or type the image's path in the prompt.`,
  };
}

let folder: Promise<string> | null = null;
let counter = 0;

/** Saves the bytes in this process's private temporary folder (0700, removed when nex exits). */
async function save(bytes: Buffer, extension: string): Promise<string> {
  folder ??= mkdtemp(join(tmpdir(), "nex-clipboard-")).then((dir) => {
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    return dir;
  });
  counter += 1;
  const path = join(await folder, `clipboard-${counter}.${extension}`);
  await writeFile(path, bytes, { flag: "wx", mode: 0o600 });
  return path;
}

/** Reads the clipboard's image and saves it; never throws. */
export async function pasteClipboardImage(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Promise<ClipboardImage> {
  const tool = reader(env, platform);
  if (!tool) return { ok: false, message: NO_TOOL };
  try {
    if (tool.kind === "macos") return await fromMacos();
    const types = (
      tool.kind === "wayland"
        ? await output("wl-paste", ["--list-types"])
        : await output("xclip", ["-selection", "clipboard", "-t", "TARGETS", "-o"])
    )
      .toString("utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    const type = Object.keys(TYPES).find((t) => types.includes(t));
    if (!type) return noImage(types);
    const bytes =
      tool.kind === "wayland"
        ? await output("wl-paste", ["--no-newline", "--type", type])
        : await output("xclip", ["-selection", "clipboard", "-t", type, "-o"]);
    if (bytes.length === 0) return noImage([]);
    return { ok: true, path: await save(bytes, TYPES[type] ?? "png") };
  } catch (error) {
    return { ok: false, message: failure(error) };
  }
}

// macOS: AppleScript writes the clipboard's PNG to a file; no image is an error it names.
async function fromMacos(): Promise<ClipboardImage> {
  const path = await save(Buffer.alloc(0), "png").catch(() => null);
  if (path === null) return { ok: false, message: "The clipboard's image could not be saved." };
  try {
    await run(
      "osascript",
      [
        "-e",
        "set png_data to (the clipboard as «class PNGf»)",
        "-e",
        `set fp to open for access POSIX file ${JSON.stringify(path)} with write permission`,
        "-e",
        "write png_data to fp",
        "-e",
        "close access fp",
      ],
      { timeout: TIMEOUT_MS },
    );
  } catch {
    await rm(path, { force: true });
    return noImage([]);
  }
  const bytes = await readFile(path);
  if (bytes.length === 0) return noImage([]);
  return { ok: true, path };
}

function failure(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { killed?: boolean };
  if (e.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER")
    return "The clipboard's image is larger than 64 MiB, so it was not pasted.";
  if (e.killed) return "The clipboard tool did not answer within 5 s, so nothing was pasted.";
  return `The clipboard could not be read (${e.message.split("\n")[0]}), so nothing was pasted.`;
}

/** The path as the prompt takes it: quoted when it has a space. */
export function promptPath(path: string): string {
  return /\s/.test(path) ? `'${path}'` : path;
}

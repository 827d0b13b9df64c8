import type { ImagePart } from "../../protocol/index.ts";
import { readWorkspaceOwnFile } from "../../tools/index.ts";
import type { ConsentPlace } from "../consent/index.ts";
import {
  commandApproved,
  commandHash,
  commandOrigin,
  shellLines,
  waitingMessage,
} from "./command-consent.ts";
import {
  COMMAND_FILE_LIMIT,
  type CustomCommand,
  matchCommand,
  substituteArguments,
} from "./custom-commands.ts";
import { parseFrontMatter } from "./front-matter.ts";
import { initPrompt } from "./init-prompt.ts";
import { readExtensionFile } from "./locations.ts";
import { findPromptImages } from "./prompt-images.ts";

/** How a command line of a command file ran: its output, or why it did not run. */
export type CommandRun =
  | { ok: true; output: string }
  /** `ran`: the command ran and failed (its output is `reason`); else it was not run. */
  | { ok: false; reason: string; ran?: boolean };

/** What expanding a prompt needs from the session. */
export interface ExpansionContext {
  workspace: string;
  allowedPaths: string[];
  /** nex's own data: never attached. */
  privatePaths: string[];
  /** Most bytes all `@` attachments of one prompt may add (a share of the window). */
  attachLimit: number;
  /** Runs a command line of a command file with the session's permissions and sandbox. */
  run(command: string): Promise<CommandRun>;
  /** Where the user's approvals of project commands are kept. */
  consent: ConsentPlace;
  /** Says something to the user at once (where a command comes from, before its lines run). */
  announce?(text: string): void;
  /** The session's model now, and whether it takes images (paths to pictures in the prompt). */
  model: string;
  acceptsImages: boolean;
}

/** The prompt to send, with notes for the user; or why nothing is sent. */
export type Expansion =
  | {
      ok: true;
      text: string;
      notes: string[];
      images: ImagePart[];
      /** The files `@` attached and the bytes of each that went to the model, from its start. */
      attached: { name: string; bytes: Buffer }[];
    }
  | { ok: false; message: string };

/**
 * What the model gets for a typed prompt: a custom command's file with its arguments, its `!` lines
 * run and their output in place; and the files named with `@path`, attached. Nothing is sent when a
 * part fails: the user is told which and why.
 */
export async function expandPrompt(
  prompt: string,
  commands: readonly CustomCommand[],
  ctx: ExpansionContext,
): Promise<Expansion> {
  const notes: string[] = [];
  let text = prompt;
  // Pictures are looked for in what the user typed, not in a command file's text or its commands' output.
  const pictures = await findPromptImages(prompt, ctx);
  if (!pictures.ok) return pictures;
  const typed = matchCommand(prompt, commands);
  const command = typed ? commands.find((c) => c.name === typed.name) : undefined;
  if (typed && command) {
    const read = await readExtensionFile(
      command.source,
      command.path,
      COMMAND_FILE_LIMIT,
      ctx.workspace,
    );
    if (read.type !== "read")
      return {
        ok: false,
        message: `/${command.name} could not be read (${read.type === "missing" ? "its file is gone" : read.reason}); nothing was sent.`,
      };
    const parsed = await parseFrontMatter(read.text);
    if (!parsed.ok)
      return {
        ok: false,
        message: `/${command.name} was not run: ${parsed.error}; nothing was sent. Fix ${command.path}.`,
      };
    const origin = commandOrigin(command);
    const lines = shellLines(parsed.body);
    if (lines.length > 0) {
      const hash = commandHash(read.text, parsed.body, ctx.workspace);
      if (!commandApproved(command, hash, ctx.consent))
        return { ok: false, message: waitingMessage(command, lines, ctx.consent) };
      ctx.announce?.(
        `/${command.name} is ${origin}; running its ${lines.length} command line${lines.length === 1 ? "" : "s"}.`,
      );
    }
    const ran = await runShellLines(substituteArguments(parsed.body, typed.args), ctx);
    if (!ran.ok)
      return {
        ok: false,
        message: `/${command.name} was not run: ${ran.message} Nothing was sent.`,
      };
    text = ran.text.trim();
    notes.push(
      `/${command.name}: ${origin} (${ran.count} command line${ran.count === 1 ? "" : "s"} run).`,
    );
    if (command.model)
      notes.push(
        `/${command.name} names the model ${command.model}; nex keeps the session's model (switch with /model).`,
      );
  }
  // A command file named `init` can only be the user's own (custom-commands.ts keeps a repository's out).
  const init = command ? null : initPrompt(prompt);
  if (init !== null) {
    text = init;
    notes.push(
      "/init: the model looks at the repository and proposes AGENTS.md; the usual approvals show the change.",
    );
  }
  const attached = await attachFiles(text, ctx, pictures.names);
  if (!attached.ok) return attached;
  return {
    ok: true,
    text: attached.text + pictures.listing,
    notes: [...notes, ...pictures.notes, ...attached.notes],
    images: pictures.images,
    attached: attached.attached,
  };
}

async function runShellLines(
  body: string,
  ctx: ExpansionContext,
): Promise<{ ok: true; text: string; count: number } | { ok: false; message: string }> {
  const wanted = shellLines(body);
  const outputs = new Map<number, string>();
  for (const line of wanted) {
    const run = await ctx.run(line.command);
    if (!run.ok)
      return { ok: false, message: `its command \`${line.command}\` did not run: ${run.reason}` };
    outputs.set(line.at, `\`${line.command}\` printed:\n\`\`\`\n${run.output.trimEnd()}\n\`\`\``);
  }
  let text = "";
  let last = 0;
  for (const line of wanted) {
    text += body.slice(last, line.at) + (outputs.get(line.at) ?? "");
    last = line.at + line.raw.length;
  }
  return { ok: true, text: text + body.slice(last), count: wanted.length };
}

// `@path` after a space or at the start; trailing punctuation belongs to the sentence.
const MENTION = /(^|\s)@([^\s`'"<>]+)/g;

async function attachFiles(
  text: string,
  ctx: ExpansionContext,
  pictures: ReadonlySet<string>,
): Promise<
  | { ok: true; text: string; notes: string[]; attached: { name: string; bytes: Buffer }[] }
  | { ok: false; message: string }
> {
  const names = [
    ...new Set([...text.matchAll(MENTION)].map((m) => (m[2] ?? "").replace(/[.,;:!?)\]]+$/, ""))),
  ].filter((name) => name !== "" && !pictures.has(name));
  if (names.length === 0) return { ok: true, text, notes: [], attached: [] };
  const blocks: string[] = [];
  const attached: { name: string; bytes: Buffer }[] = [];
  const notes: string[] = [];
  let left = ctx.attachLimit;
  for (const name of names) {
    const read = await readWorkspaceOwnFile({
      workspace: ctx.workspace,
      name,
      limit: Math.max(0, left),
      allowedPaths: ctx.allowedPaths,
      privatePaths: ctx.privatePaths,
    });
    // Not a file here (an npm scope, a handle, a folder): the text stays as typed.
    if (read.type === "missing") continue;
    if (read.type === "refused") {
      if (/directory/.test(read.reason)) continue;
      return { ok: false, message: `@${name} was not attached: ${read.reason}. Nothing was sent.` };
    }
    if (read.text.includes("\u0000"))
      return {
        ok: false,
        message: `@${name} is a binary file; only text files can be attached. Nothing was sent.`,
      };
    left -= Buffer.byteLength(read.text);
    attached.push({ name, bytes: read.bytes });
    const cut = read.truncated
      ? `\n(only the first ${Buffer.byteLength(read.text)} of ${read.size} bytes are attached; read the rest with read_file)`
      : "";
    blocks.push(
      `<file path="${name}">\n${read.text}${read.text.endsWith("\n") ? "" : "\n"}</file>${cut}`,
    );
    notes.push(
      `Attached @${name} (${read.size} bytes${read.truncated ? ", cut to fit the window" : ""}).`,
    );
  }
  if (blocks.length === 0) return { ok: true, text, notes, attached };
  return {
    ok: true,
    text: `${text}\n\nFiles attached with @:\n${blocks.join("\n")}`,
    notes,
    attached,
  };
}

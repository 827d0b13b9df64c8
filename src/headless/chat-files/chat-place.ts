// Where a chat's files are, and whether nex may take what its inbox says as the user's word. What the
// inbox says reaches the model as the user's turn: a folder a sandboxed command could write (a
// `sandbox.writable` folder), or one another account could write (group or world writable, or not
// the user's own), would let someone else speak as the user, so it is refused before anything runs,
// as `--inbox` is. A folder inside the workspace (workgraph's `.wg/chat/NAME`) is served held: the
// sandbox mounts it read-only for every command and the file tools keep out; with no sandbox to
// hold it, it is refused.
import { lstatSync, mkdirSync, readlinkSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import {
  ConfigError,
  type ConfigFlags,
  type NexConfig,
  resolveConfig,
} from "../../runtime/config/index.ts";
import { commandWritable, realPathOf, unconfinedReason } from "../../runtime/consent/index.ts";
import { CURSOR, OUTBOX, STREAMING } from "./chat-outbox.ts";
import { LOCK_FILE, RELEASE_MARKER, TAKEOVER_FILE } from "./handler-lock.ts";
import { OUTBOX_LOCK } from "./outbox-lock.ts";

export const SESSION_FILE = ".nex-session";
/** The inbox id being answered: after a crash, the next handler tells the model it was interrupted. */
export const WORKING_FILE = ".nex-working";
/** Every file nex reads or writes in a chat folder by its name. */
const CHAT_FILES = [
  "inbox.jsonl",
  OUTBOX,
  OUTBOX_LOCK,
  STREAMING,
  CURSOR,
  LOCK_FILE,
  RELEASE_MARKER,
  TAKEOVER_FILE,
  SESSION_FILE,
  WORKING_FILE,
];

/** The chat folder `--chat` names, and whether it lies in the workspace (then held read-only). */
export interface ChatPlace {
  dir: string;
  /** True when the folder is inside the workspace: commands and tools must not change it. */
  held: boolean;
  /** The configuration the folder was checked against. */
  config: NexConfig;
}

/** The chat folder `--chat` names: a path, or a bare name under the config's `chatRoot`. */
export function chatFolder(
  given: string,
  flags: ConfigFlags,
  env: Record<string, string | undefined>,
  cwd: string,
): ChatPlace {
  const config = resolveConfig(flags, env, cwd);
  const bare = !given.includes("/") && given !== "." && given !== "..";
  let dir: string;
  if (bare && config.chatRoot) {
    const root = config.chatRoot.startsWith("~/")
      ? join(env.HOME || homedir(), config.chatRoot.slice(2))
      : config.chatRoot;
    dir = resolve(isAbsolute(root) ? root : resolve(cwd, root), given);
  } else dir = resolve(cwd, given);
  const workspace = realPathOf(config.workspace);
  const real = realPathOf(dir);
  const held = real === workspace || real.startsWith(`${workspace}/`);
  if (real === workspace)
    throw new ConfigError(
      `--chat ${given} is the workspace itself; give a folder of its own, such as .wg/chat/${given === "." ? "main" : "NAME"}.`,
    );
  if (held) {
    const unconfined = unconfinedReason(config, env);
    if (unconfined)
      throw new ConfigError(
        `--chat ${given} lies inside the workspace ${workspace}, and ${unconfined}: a command nex runs could write its inbox and speak as the user. Install bubblewrap (Debian/Ubuntu: \`sudo apt-get install bubblewrap\`) and leave the sandbox on, so that nex holds the folder read-only; or keep the chat folder outside the workspace (set "chatRoot" in the config to a folder of your own, such as ~/.local/state/wg-chat).`,
      );
  }
  // Held, the folder is read-only to commands wherever it lies; else a writable folder is refused.
  const where = held
    ? null
    : commandWritable(dir, {
        workspace: config.workspace,
        writable: config.sandbox.writable ?? [],
        home: env.HOME,
      });
  if (where)
    throw new ConfigError(
      `--chat ${given} lies ${where}: a command nex runs could write its inbox and speak as the user. Keep the chat folder outside the workspace (set "chatRoot" in the config to a folder of your own, such as ~/.local/state/wg-chat), and pass its name or path.`,
    );
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if (!stat.isDirectory())
    throw new ConfigError(`--chat ${given} is not a folder (${dir}); give a chat folder.`);
  const uid = process.getuid?.();
  for (const file of [dir, join(dir, "inbox.jsonl")]) refuseOthersWriting(file, given, uid);
  refuseLinkedFiles(dir, given);
  if (held) refuseLinkedInbox(join(dir, "inbox.jsonl"), given);
  return { dir: realPathOf(dir), held, config };
}

function refuseOthersWriting(path: string, given: string, uid: number | undefined): void {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    return;
  }
  if (uid !== undefined && stat.uid !== uid)
    throw new ConfigError(
      `--chat ${given}: ${path} belongs to another user (uid ${stat.uid}), who could write the inbox and speak as you. Use a chat folder of your own.`,
    );
  if ((stat.mode & 0o022) !== 0)
    throw new ConfigError(
      `--chat ${given}: ${path} is writable by other users (mode ${(stat.mode & 0o777).toString(8)}), who could write the inbox and speak as you. Run \`chmod go-w ${path}\`, then start nex again.`,
    );
}

/**
 * A chat file that is a symbolic link (planted by the repository, or by a command of a session that
 * did not hold the folder) leads where the read-only mount does not reach: an inbox linked to a file a
 * command can write would speak as the user, an outbox linked elsewhere would have nex append replies
 * to that file. Each must be a plain file of the folder's own.
 */
function refuseLinkedFiles(dir: string, given: string): void {
  for (const name of CHAT_FILES) {
    const path = join(dir, name);
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(path);
    } catch {
      continue;
    }
    if (stat.isFile()) continue;
    const what = stat.isSymbolicLink()
      ? `a symbolic link (to ${linkTarget(path)})`
      : "not a plain file";
    throw new ConfigError(
      `--chat ${given}: ${path} is ${what}; through it a command could write the chat or nex would write outside the chat folder. Remove it (workgraph makes a new one), then start nex again.`,
    );
  }
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "somewhere else";
  }
}

/**
 * A held inbox with a second name (a hard link made earlier, by a command of a session that did not
 * hold the folder) could be written through that name, which the read-only mount does not cover.
 */
function refuseLinkedInbox(inbox: string, given: string): void {
  let links: number;
  try {
    links = statSync(inbox).nlink;
  } catch {
    return;
  }
  if (links > 1)
    throw new ConfigError(
      `--chat ${given}: ${inbox} has ${links} names (hard links); through another one a command could write the inbox and speak as the user. Find them (\`find . -samefile ${inbox}\`), remove the others, then start nex again.`,
    );
}

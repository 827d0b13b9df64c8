// `nex --chat DIR`: a conversation served from a chat folder's files (docs/chat-files.md).
import { type ChatFilesOptions, serveChatFiles } from "./serve.ts";

export { type ChatFilesOptions, serveChatFiles };

/** The command line's `--chat` (and `--role`) as the process runs it. */
export function chatFilesCommand(command: {
  options: Parameters<typeof serveChatFiles>[0];
  chat: string;
  role?: string;
}): Promise<number> {
  return serveChatFiles(command.options, process.env, process.cwd(), {
    chat: command.chat,
    open: { concealEnvironment: true, ...(command.role ? { role: command.role } : {}) },
    err: (text) => process.stderr.write(text),
  });
}

// `nex --chat DIR`: a conversation served from a chat folder's files (docs/chat-files.md).
import { DEFAULT_APPROVAL_TIMEOUT_S } from "./chat-approvals.ts";
import { type ChatFilesOptions, serveChatFiles } from "./serve.ts";

export { type ChatFilesOptions, serveChatFiles };

/** The command line's `--chat` (and `--role`) as the process runs it. */
export function chatFilesCommand(command: {
  options: Parameters<typeof serveChatFiles>[0];
  chat: string;
  role?: string;
  approvalTimeout?: number;
}): Promise<number> {
  return serveChatFiles(command.options, process.env, process.cwd(), {
    chat: command.chat,
    approvalTimeoutS: command.approvalTimeout ?? DEFAULT_APPROVAL_TIMEOUT_S,
    open: { concealEnvironment: true, ...(command.role ? { role: command.role } : {}) },
    err: (text) => process.stderr.write(text),
  });
}

// The editor's view of files (fs/read_text_file), for the file tools: what the user typed but did not
// save is seen by the model, and protected from nex's writes.
import { isAbsolute, relative } from "node:path";
import type { AgentContext } from "@agentclientprotocol/sdk";
import type { OpenOptions } from "../runtime/assembly/index.ts";

type EditorBuffers = NonNullable<OpenOptions["editor"]>;

/** An editor that does not answer within this long is taken to have nothing unsaved. */
const ANSWER_MS = 10_000;
/** A buffer larger than this is not read into the conversation. */
const BUFFER_LIMIT = 10 * 1024 * 1024;

export interface EditorFileOptions {
  client: AgentContext;
  /** The session the tools work for: known once it is open (tools run only after). */
  session: () => { sessionId: string; workspace: string } | null;
  log: (line: string) => void;
}

/** Same text for a person: the editor may hand back LF where the disk has CRLF, and no BOM. */
function sameText(a: string, b: string): boolean {
  const plain = (text: string) => text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  return a === b || plain(a) === plain(b);
}

export function editorFiles(options: EditorFileOptions): EditorBuffers {
  return {
    async unsaved(abs, disk) {
      const session = options.session();
      if (!session) return null;
      // Only files of the workspace: the editor is not asked about stored results or allowed paths.
      const inside = relative(session.workspace, abs);
      if (inside === "" || inside === ".." || inside.startsWith("../") || isAbsolute(inside))
        return null;
      try {
        const { content } = await options.client.request(
          "fs/read_text_file",
          { sessionId: session.sessionId, path: abs },
          { cancellationSignal: AbortSignal.timeout(ANSWER_MS) },
        );
        if (typeof content !== "string" || content.length > BUFFER_LIMIT) return null;
        return sameText(content, disk.toString("utf8")) ? null : content;
      } catch (error) {
        // An editor that cannot say leaves the disk's text in force: nex's own checks still hold.
        options.log(`fs/read_text_file ${abs}: ${(error as Error).message}`);
        return null;
      }
    },
  };
}

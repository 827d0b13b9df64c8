// An editor's unsaved changes (ACP's fs/read_text_file) in the file tools: reads show them, and a
// change to such a file is refused until they are saved, so nex never writes over the user's typing.
import { createHash } from "node:crypto";
import type { ToolOutcome } from "../../protocol/index.ts";
import type { FileState } from "../files/index.ts";
import { failure } from "../tool.ts";

/**
 * The file as the editor shows it. Its hash goes to the read ledger, so a later change is allowed
 * only when the disk holds exactly what the model read (the user saved it), else it is stale.
 */
export function asInEditor(disk: FileState, text: string): FileState {
  const bytes = Buffer.from(text, "utf8");
  return {
    ...disk,
    bytes,
    size: bytes.length,
    hash: createHash("sha256").update(bytes).digest("hex"),
  };
}

/** The refusal of a change to a file with unsaved changes in the editor. */
export function unsavedChanges(display: string, nothing: string): ToolOutcome {
  return failure(
    "stale_read",
    `${display} has changes in the editor that are not saved; nex does not write over them. ${nothing} ` +
      "Ask the user to save (or discard) them, then read the file again and redo the change on what it holds.",
  );
}

import type { Message, UndoResult } from "../../protocol/index.ts";
import type { PromptMark, RewindPoint } from "../history/index.ts";
import type { SessionParts } from "./session-parts.ts";

/** What the session lends a rewind. */
export interface RewindHost {
  parts: SessionParts;
  /** The conversation as it is now (`/clear` replaces the array). */
  messages(): Message[];
  /** The prompts of this process, newest last. */
  marks: PromptMark[];
  points(): Promise<RewindPoint[]>;
  /** Undoes the file changes of the newest `steps` prompts, with no note to the model. */
  undo(steps: number): Promise<UndoResult>;
}

/**
 * `/rewind N`: the files and the conversation go back to before prompt N, or neither does: files that
 * could not be restored, or were changed outside nex, leave the conversation whole.
 */
export async function rewindConversation(
  host: RewindHost,
  number: number,
): Promise<{ rewound: boolean; line: string; prompt: string | null }> {
  const no = (line: string) => ({ rewound: false, line, prompt: null });
  const point = (await host.points()).find((p) => p.number === number);
  if (!point) return no(`No prompt ${number} to rewind to; /rewind lists them.`);
  const mark = host.marks.find((m) => m.time === point.time && m.text === point.text);
  const index = mark ? host.messages().indexOf(mark.message) : -1;
  if (!mark || index < 0) return no(`Prompt ${number} is no longer in the conversation.`);
  let files = "No file was changed since then.";
  if (point.steps > 0) {
    const result = await host.undo(point.steps);
    // Files that could not be restored: the conversation stays whole, so nothing disagrees silently.
    if (result.kind === "partial")
      return no(
        `${result.report}\nThe conversation was not rewound, since not every file could be restored; see above, then /rewind again or /undo.`,
      );
    // Changed outside nex since: left as it is (never clobbered). The user decides whether the
    // conversation goes back anyway: the same rewind again cuts it, the left-alone files untouched.
    if (result.leftAlone.length > 0)
      return no(
        `${result.report}\nThe conversation was not rewound, since these files were changed outside nex and stay as they are. Rewind to prompt ${number} again to cut the conversation anyway (those files are not touched), or leave it here.`,
      );
    files = result.report;
  }
  const messages = host.messages();
  const gone = messages.length - index;
  messages.splice(index);
  host.marks.splice(host.marks.indexOf(mark));
  const { budget, tools, journal } = host.parts;
  budget.forgetUsage();
  await tools.forgetConversation();
  // One record, so a nex killed while writing it leaves the rewind out whole, never half the
  // conversation; a resume reads back the rewound conversation, and every earlier record stays.
  journal.rewound(gone);
  journal.sync();
  return {
    rewound: true,
    line: `Rewound to before prompt ${number}: ${gone} message${gone === 1 ? "" : "s"} left the conversation (kept in the journal). ${files}`,
    prompt: mark.text,
  };
}

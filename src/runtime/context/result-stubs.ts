import type { AgentEvent, Message, ToolResultMessage } from "../../protocol/index.ts";
import { formatCount } from "../../protocol/index.ts";
import type { ResultStore } from "../../tools/index.ts";
import type { SessionBudget } from "./request-budget.ts";

/** How a stub begins, so a stub is never stubbed again. */
export const STUB_MARK = "[nex] An older result of ";
// The name a stored result goes by in the note of `storedNote` (tools/result-store.ts).
const STORED_NAME = /"(@results\/[a-z0-9]+-\d+-[\w-]{1,40}\.txt)"/;
// Results of the last few turns stay whole: the model is working with them.
const KEEP_TURNS = 3;
// Stubbing starts once the conversation fills this share of the window, well before compaction.
const START_SHARE = 0.5;

/**
 * Keeps the conversation small before a full compaction is needed: once it fills half the window,
 * large results older than the last few turns become a stub naming their stored copy (`@results/…`,
 * paged with read_file or grep). A result not stored yet is stored first; one that cannot be stays.
 */
export function resultShrinker(budget: SessionBudget, store: ResultStore) {
  // The first notice explains; later ones, a turn apart as results age, only count.
  let explained = false;
  return (system: string, messages: Message[]): AgentEvent[] => {
    const window = budget.window();
    if (budget.estimatePrompt(system, messages) <= window * START_SHARE) return [];
    // About 3.5 bytes a token: a result worth a stub takes 2% of the window, and at least 2 KiB.
    const minBytes = Math.max(2048, Math.floor(window * 0.02 * 3.5));
    const { stubbed, bytes } = stubOldResults(messages, store, minBytes);
    if (stubbed === 0) return [];
    // The endpoint's last count described the longer conversation.
    budget.forgetUsage();
    const moved = `${stubbed} older tool result${stubbed === 1 ? "" : "s"} (${Math.round(bytes / 1024)} KiB)`;
    const message = explained
      ? `Moved ${moved} out of the conversation, stored whole as before.`
      : `Moved ${moved} out of the conversation to keep it small; each is stored whole and the model can page it.`;
    explained = true;
    return [{ type: "notice", message }];
  };
}

/** Replaces large results before the last `KEEP_TURNS` assistant turns by stubs, in place. */
export function stubOldResults(
  messages: Message[],
  store: ResultStore,
  minBytes: number,
): { stubbed: number; bytes: number } {
  let turns = 0;
  let end = messages.length;
  for (let i = messages.length - 1; i >= 0 && turns < KEEP_TURNS; i--) {
    if (messages[i]?.type === "assistant") {
      turns += 1;
      end = i;
    }
  }
  if (turns < KEEP_TURNS) return { stubbed: 0, bytes: 0 };
  let stubbed = 0;
  let bytes = 0;
  for (let i = 0; i < end; i++) {
    const message = messages[i];
    // Bytes, as the threshold is: a result of multi-byte text is larger than its length says.
    if (message?.type !== "tool_result" || Buffer.byteLength(message.content) < minBytes) continue;
    if (message.content.startsWith(STUB_MARK)) continue;
    const stub = stubFor(message, store);
    if (!stub) continue;
    bytes += Buffer.byteLength(message.content) - Buffer.byteLength(stub);
    messages[i] = { ...message, content: stub };
    stubbed += 1;
  }
  return { stubbed, bytes };
}

function stubFor(message: ToolResultMessage, store: ResultStore): string | null {
  const size = Buffer.byteLength(message.content);
  const lines = message.content.split("\n").length;
  let name = STORED_NAME.exec(message.content)?.[1] ?? null;
  if (!name) {
    try {
      // Its own label: the tools' store numbers its names apart from this one.
      name = store.save(message.content, `old-${message.toolName}`).name;
    } catch {
      // Not stored, so not stubbed: nothing is lost.
      return null;
    }
  }
  const outcome = message.isError ? " (it was an error)" : "";
  return (
    `${STUB_MARK}${message.toolName}${outcome} (${formatCount(size)} bytes, ${formatCount(lines)} lines) ` +
    `was moved out of the conversation to keep it small; it is stored as "${name}". ` +
    `Read any part with read_file (path "${name}", offset, limit) or search it with grep (path "${name}").`
  );
}

// A write or edit as the editor shows it: the change proposed (in the permission question) and the
// change made (old and new text of the whole file), with nex's secrets replaced.
import type { ToolCallContent } from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../protocol/index.ts";
import { workspaceText } from "./file-text.ts";
import { locationsOf } from "./tool-calls.ts";

export interface ChangeView {
  workspace: string;
  redact: (text: string) => string;
}

/** The file before the call ran: text, null (absent), undefined (not shown). */
type Before = Promise<string | null | undefined> | undefined;

function absolute(path: string, workspace: string): string | undefined {
  return locationsOf("write_file", { path }, workspace)[0]?.path;
}

/** The change a write or edit would make, for the permission question. */
export async function changeProposed(
  name: string,
  args: Record<string, unknown>,
  before: Before,
  view: ChangeView,
): Promise<ToolCallContent[]> {
  const path = typeof args.path === "string" ? absolute(args.path, view.workspace) : undefined;
  if (!path) return [];
  if (
    name === "edit_file" &&
    typeof args.old_string === "string" &&
    typeof args.new_string === "string"
  )
    return [{ type: "diff", path, oldText: args.old_string, newText: args.new_string }];
  const whole = args.parts === undefined || args.parts === 1;
  if (name !== "write_file" || typeof args.content !== "string" || !whole) return [];
  const old = before ? await before : undefined;
  if (old === undefined) return [];
  return [
    {
      type: "diff",
      path,
      oldText: old === null ? null : view.redact(old),
      newText: args.content,
    },
  ];
}

/** Old and new text of a write or edit that happened; null when it cannot be shown as a diff. */
export async function changeMade(
  event: Extract<AgentEvent, { type: "tool_result" }>,
  before: Before,
  view: ChangeView,
): Promise<ToolCallContent | null> {
  const details = event.details;
  if (event.isError || !details || (details.type !== "write" && details.type !== "edit"))
    return null;
  const old = before ? await before : undefined;
  const now = await workspaceText(view.workspace, details.path);
  const path = absolute(details.path, view.workspace);
  if (old === undefined || typeof now !== "string" || !path) return null;
  return {
    type: "diff",
    path,
    oldText: old === null ? null : view.redact(old),
    newText: view.redact(now),
  };
}

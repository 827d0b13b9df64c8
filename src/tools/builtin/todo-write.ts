import * as v from "valibot";
import type { Message, TodoItem, ToolOutcome } from "../../protocol/index.ts";
import { defineTool, failure, NON_BLANK, type Tool } from "../tool.ts";

const MAX_ITEMS = 50;

const parameters = v.strictObject({
  todos: v.pipe(
    v.array(
      v.strictObject({
        content: v.pipe(v.string(), v.regex(NON_BLANK), v.maxLength(300)),
        status: v.picklist(["pending", "in_progress", "completed"]),
      }),
    ),
    v.maxLength(MAX_ITEMS),
  ),
});

const MARK: Record<TodoItem["status"], string> = {
  completed: "[x]",
  in_progress: "[>]",
  pending: "[ ]",
};

/** The list as the model and the user read it: one `[x]`/`[>]`/`[ ]` line per step. */
export function renderTodos(items: readonly TodoItem[]): string {
  return items
    .map((item) => `${MARK[item.status]} ${item.content.replace(/\s+/g, " ").trim()}`)
    .join("\n");
}

/** Reads back a list written by `renderTodos` (to carry it across a compaction); unknown lines are skipped. */
export function parseTodos(text: string): TodoItem[] {
  const items: TodoItem[] = [];
  for (const line of text.split("\n")) {
    const match = /^\[(x| |>)\] (.+)$/.exec(line);
    if (!match?.[2]) continue;
    const status = match[1] === "x" ? "completed" : match[1] === ">" ? "in_progress" : "pending";
    items.push({ content: match[2], status });
  }
  return items;
}

/** The `todo_write` tool: the model's checklist for a task of several steps, shown to the user. */
export function todoWriteTool(): Tool {
  return defineTool({
    name: "todo_write",
    description:
      "A checklist for tasks of 3 or more steps, shown to the user: send the whole list each call, one step in_progress, steps completed as soon as done.",
    parameters,
    mutates: false,
    async execute(args): Promise<ToolOutcome> {
      const items = args.todos.map((item) => ({
        content: item.content.replace(/\s+/g, " ").trim(),
        status: item.status,
      }));
      const active = items.filter((item) => item.status === "in_progress").length;
      if (active > 1) {
        return failure(
          "invalid_arguments",
          `${active} steps are in_progress; keep exactly one in_progress (the one you are doing now) and send the list again.`,
        );
      }
      const done = items.filter((item) => item.status === "completed").length;
      const summary =
        items.length === 0
          ? "Todo list cleared."
          : `Todo list updated (${done} of ${items.length} done):\n${renderTodos(items)}`;
      return { isError: false, content: summary, details: { type: "todo", items } };
    },
  });
}

/** How the list is carried across a compaction: a note of nex's, in the kept conversation. */
export const TODO_NOTE = "[nex] Your todo list, kept across the compaction:";

/**
 * The latest list in a conversation: the last successful `todo_write` result, or the note a compaction
 * left; null when the model never kept one.
 */
export function latestTodos(messages: readonly Message[]): TodoItem[] | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.type === "tool_result" && message.toolName === "todo_write" && !message.isError)
      return parseTodos(message.content);
    if (message?.type === "user" && message.text.startsWith(TODO_NOTE))
      return parseTodos(message.text);
  }
  return null;
}

/** The note that carries a non-empty list into a compacted conversation. */
export function todoNote(items: readonly TodoItem[]): Message | null {
  return items.length === 0 ? null : { type: "user", text: `${TODO_NOTE}\n${renderTodos(items)}` };
}

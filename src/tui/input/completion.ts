// Completion as you type: `/` at the start of the prompt lists the commands (built-in and the user's
// own, with their descriptions), `@` lists workspace paths. Tab completes: the one match, or what all
// matches share, then each match in turn; Esc hides the list; Enter still sends what is typed.
import { Box, Text } from "ink";
import React from "react";
import { plainText } from "../../protocol/plain-text.ts";
import { helpText } from "../commands/index.ts";
import { truncateEnd } from "../fit.ts";
import type { EditorState } from "./editor.ts";

const h = React.createElement;

/** One thing Tab can put in place of the word being typed. */
export interface Suggestion {
  /** What replaces the word. */
  insert: string;
  description: string;
}

/** The word being completed (`from`..`to` in the prompt) and what may replace it. */
export interface Completion {
  from: number;
  to: number;
  items: Suggestion[];
}

/** Where suggestions come from. */
export interface CompletionSources {
  commands: readonly { name: string; description: string | null }[];
  paths(partial: string): string[];
}

/** The built-in commands, read from the help so the two never disagree. */
export const builtinCommands: { name: string; description: string }[] = helpText
  .split("\n")
  .map((line) => /^\/([a-z]+)[^\t]*\t(.+)$/.exec(line))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ name: m[1] ?? "", description: m[2] ?? "" }))
  .filter((c, i, all) => all.findIndex((o) => o.name === c.name) === i);

/** What can complete the word before the cursor, or null when nothing does. */
export function completionAt(editor: EditorState, sources: CompletionSources): Completion | null {
  const before = editor.text.slice(0, editor.cursor);
  const command = /^\/([\w:.-]*)$/.exec(before);
  if (command) {
    const typed = command[1] ?? "";
    const items = [...builtinCommands, ...sources.commands]
      .filter((c) => c.name.startsWith(typed))
      .map((c) => ({ insert: `/${c.name} `, description: c.description ?? "" }));
    return items.length === 0 ? null : { from: 0, to: editor.cursor, items };
  }
  const mention = /(^|\s)@([^\s@]*)$/.exec(before);
  if (mention) {
    const partial = mention[2] ?? "";
    const from = editor.cursor - partial.length - 1;
    const items = sources.paths(partial).map((path) => ({
      insert: path.endsWith("/") ? `@${path}` : `@${path} `,
      description: path.endsWith("/") ? "folder" : "",
    }));
    return items.length === 0 ? null : { from, to: editor.cursor, items };
  }
  return null;
}

/** The prompt with `insert` in place of the completed word. */
export function applySuggestion(
  editor: EditorState,
  completion: Completion,
  insert: string,
): EditorState {
  const text = editor.text.slice(0, completion.from) + insert + editor.text.slice(completion.to);
  return { text, cursor: completion.from + insert.length };
}

/** What every suggestion starts with (bash's Tab: the common part first). */
export function sharedStart(items: readonly Suggestion[]): string {
  const words = items.map((item) => item.insert.trimEnd());
  let shared = words[0] ?? "";
  for (const word of words.slice(1)) {
    let n = 0;
    while (n < shared.length && n < word.length && shared[n] === word[n]) n += 1;
    shared = shared.slice(0, n);
  }
  return shared;
}

// Rows the list may take: the live region has a budget (fit.ts).
const SHOWN = 5;

/** The rows the list takes on screen. */
export function suggestionRows(completion: Completion | null): number {
  if (!completion) return 0;
  return Math.min(completion.items.length, SHOWN) + (completion.items.length > SHOWN ? 1 : 0);
}

/** The suggestions under the prompt, the chosen one marked, each cut to the terminal's width. */
export function SuggestionList(props: {
  completion: Completion | null;
  chosen: number;
  columns: number;
}): React.ReactElement | null {
  const { completion, chosen, columns } = props;
  if (!completion) return null;
  const start = Math.max(0, Math.min(chosen - SHOWN + 1, completion.items.length - SHOWN));
  const shown = completion.items.slice(start, start + SHOWN);
  const width = Math.max(10, columns - 2);
  const labelWidth = Math.min(28, Math.max(...shown.map((s) => s.insert.trimEnd().length)) + 2);
  return h(
    Box,
    { flexDirection: "column" },
    ...shown.map((item, i) => {
      const label = item.insert.trimEnd().padEnd(labelWidth);
      const line = truncateEnd(plainText(`${label}${item.description}`), width);
      return h(
        Text,
        { key: item.insert, dimColor: start + i !== chosen, bold: start + i === chosen },
        ` ${line}`,
      );
    }),
    completion.items.length > SHOWN
      ? h(
          Text,
          { dimColor: true },
          ` … ${completion.items.length - SHOWN} more: keep typing, or Tab`,
        )
      : null,
  );
}

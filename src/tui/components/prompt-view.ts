import { Box, Text } from "ink";
import React from "react";
import type { EditorState } from "../editor.ts";

const h = React.createElement;

/** Properties of the prompt. */
export interface PromptViewProps {
  editor: EditorState;
  /** Shown dimmed while the prompt is empty. */
  placeholder: string;
  marker?: string;
  color?: string;
}

/** The prompt being typed, over several lines, with an inverse-video cursor. */
export function PromptView(props: PromptViewProps): React.ReactElement {
  const { editor, placeholder } = props;
  const marker = props.marker ?? "›";
  const lines = editor.text.split("\n");
  let offset = 0;
  const rows = lines.map((line, row) => {
    const start = offset;
    offset += line.length + 1;
    const prefix = h(
      Text,
      { color: props.color ?? "cyan", bold: true },
      row === 0 ? `${marker} ` : "  ",
    );
    const hasCursor = editor.cursor >= start && editor.cursor <= start + line.length;
    if (!hasCursor) return h(Box, { key: row }, prefix, h(Text, null, line));
    const at = editor.cursor - start;
    const under = line.slice(at, at + 1);
    const showPlaceholder = editor.text === "";
    return h(
      Box,
      { key: row },
      prefix,
      h(
        Text,
        null,
        line.slice(0, at),
        h(Text, { inverse: true }, under === "" ? " " : under),
        line.slice(at + 1),
        showPlaceholder ? h(Text, { dimColor: true }, placeholder) : null,
      ),
    );
  });
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", borderDimColor: true, paddingX: 1 },
    ...rows,
  );
}

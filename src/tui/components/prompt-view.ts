import { Box, Text } from "ink";
import React from "react";
import { windowAround } from "../fit.ts";
import type { EditorState } from "../input/index.ts";

const h = React.createElement;

/** Properties of the prompt. */
export interface PromptViewProps {
  editor: EditorState;
  /** Shown dimmed while the prompt is empty. */
  placeholder: string;
  marker?: string;
  color?: string;
  /** Lines shown at most; a longer prompt scrolls to keep the cursor's line in view. */
  maxRows?: number;
  /** The box's width (the terminal's): a line wraps inside it, never past its border. */
  columns?: number;
}

/** The prompt being typed, over several lines, with an inverse-video cursor. */
export function PromptView(props: PromptViewProps): React.ReactElement {
  const { editor, placeholder } = props;
  const marker = props.marker ?? "›";
  const lines = editor.text.split("\n");
  const cursorLine = editor.text.slice(0, editor.cursor).split("\n").length - 1;
  const shown = windowAround(lines.length, cursorLine, props.maxRows ?? lines.length);
  // Border and padding take four columns, the marker two; the text's width is set, not left to flex
  // (Ink measures a text in a row at the row's whole width).
  const body = props.columns === undefined ? {} : { width: Math.max(1, props.columns - 6) };
  let offset = 0;
  const rows = lines.map((line, row) => {
    const start = offset;
    offset += line.length + 1;
    const prefix = h(
      Box,
      { width: 2, flexShrink: 0 },
      h(Text, { color: props.color ?? "cyan", bold: true }, row === 0 ? `${marker} ` : "  "),
    );
    const hasCursor = editor.cursor >= start && editor.cursor <= start + line.length;
    if (!hasCursor) return h(Box, { key: row }, prefix, h(Box, body, h(Text, null, line)));
    const at = editor.cursor - start;
    const under = line.slice(at, at + 1);
    const showPlaceholder = editor.text === "";
    return h(
      Box,
      { key: row },
      prefix,
      h(
        Box,
        body,
        h(
          Text,
          null,
          line.slice(0, at),
          h(Text, { inverse: true }, under === "" ? " " : under),
          line.slice(at + 1),
          showPlaceholder ? h(Text, { dimColor: true }, placeholder) : null,
        ),
      ),
    );
  });
  const visible = rows.slice(shown.start, shown.end);
  if (shown.start > 0) {
    visible[0] = h(Text, { key: "above", dimColor: true }, `  … ${shown.start} lines above`);
  }
  if (shown.end < lines.length) {
    const below = `  … ${lines.length - shown.end} lines below`;
    visible[visible.length - 1] = h(Text, { key: "below", dimColor: true }, below);
  }
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", borderDimColor: true, paddingX: 1 },
    ...visible,
  );
}

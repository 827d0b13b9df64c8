// A table of two columns as the chat shows `/help` and `/status`: each row's name in a column as
// wide as the longest name allows, its text wrapped beside it with a hanging indent at the width,
// a name too long for the column on a row of its own. A backquoted name is never split across rows.
import { Box, Text } from "ink";
import React from "react";
import wrapAnsi from "wrap-ansi";
import { textWidth } from "../fit.ts";

const h = React.createElement;

/** The widest name column; a longer name gets a row of its own, its text under the column. */
const maxNameWidth = 22;

// Spaces inside `…` become no-break spaces: wrapping breaks at spaces only, so the name stays whole.
function keepCodeWhole(text: string): string {
  return text.replace(/`[^`\n]+`/g, (code) => code.replace(/ /g, "\u00a0"));
}

/** `text`'s lines; a line "name\ttext" is a row of the table, any other line is shown as it is. */
export function ColumnsText(props: {
  text: string;
  columns: number;
  textProps: Record<string, unknown>;
}): React.ReactElement {
  const lines = props.text.split("\n");
  const names = lines.filter((l) => l.includes("\t")).map((l) => textWidth(l.split("\t")[0] ?? ""));
  const nameWidth = Math.min(maxNameWidth, Math.max(0, ...names)) + 2;
  const bodyWidth = Math.max(10, props.columns - nameWidth);
  // Wrapped here, trimmed (Ink's own wrap keeps the space a row broke at, one column off).
  const text = (value: string, width: number) =>
    h(
      Text,
      { ...props.textProps, wrap: "truncate-end" },
      wrapAnsi(keepCodeWhole(value), Math.max(1, width), { hard: true, trim: true }) || " ",
    );
  return h(
    Box,
    { flexDirection: "column", width: props.columns },
    ...lines.map((line, i) => {
      const tab = line.indexOf("\t");
      if (tab < 0) return h(Box, { key: i, width: props.columns }, text(line, props.columns));
      const name = line.slice(0, tab);
      const body = h(Box, { width: bodyWidth }, text(line.slice(tab + 1), bodyWidth));
      if (textWidth(name) + 2 > nameWidth)
        return h(
          Box,
          { key: i, flexDirection: "column" },
          text(name, props.columns),
          h(Box, { flexDirection: "row" }, h(Box, { width: nameWidth, flexShrink: 0 }), body),
        );
      return h(
        Box,
        { key: i, flexDirection: "row" },
        h(Box, { width: nameWidth, flexShrink: 0 }, text(name, nameWidth)),
        body,
      );
    }),
  );
}

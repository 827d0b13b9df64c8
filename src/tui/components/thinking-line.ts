// While a reasoning model thinks, the wait is where a local model spends longest: a live line says
// that it thinks and how much (characters so far, elapsed time), and Ctrl-O opens the reasoning's
// last rows under it. When the stretch ends, the collapsed line in the transcript replaces it.
import { Box, Text } from "ink";
import React from "react";
import { formatCount } from "../../protocol/index.ts";
import { plainText } from "../../protocol/plain-text.ts";
import { tailToFit, truncateEnd } from "../fit.ts";
import { expandTabs } from "../markdown/index.ts";
import { formatElapsed } from "../state/index.ts";
import { useClock } from "./status-bar.ts";

const h = React.createElement;

/** The live thinking line's words, for the screen and the tests. */
export function thinkingWords(chars: number, elapsedMs: number, open: boolean): string {
  const key = open ? "Ctrl-O hides it" : "Ctrl-O shows it";
  return `✻ thinking · ${formatCount(chars)} characters · ${formatElapsed(elapsedMs)} · ${key}`;
}

/** The model's reasoning as it arrives: one line, and its last `openRows` rows when opened. */
export function ThinkingLine(props: {
  chars: number;
  since: number;
  text: string;
  open: boolean;
  openRows: number;
  columns: number;
}): React.ReactElement {
  const now = useClock(true, 100);
  const width = Math.max(1, props.columns - 1);
  const line = truncateEnd(thinkingWords(props.chars, now - props.since, props.open), width);
  const tail =
    props.open && props.openRows > 0
      ? tailToFit(expandTabs(plainText(props.text)).trim(), width - 2, props.openRows)
      : null;
  return h(
    Box,
    { flexDirection: "column", marginTop: 1, width },
    h(Text, { color: "magenta" }, line),
    tail
      ? h(Box, { paddingLeft: 2, width }, h(Text, { dimColor: true, wrap: "wrap" }, tail))
      : null,
  );
}

import { Box, Text } from "ink";
import React from "react";
import { formatLines, formatSize } from "../../protocol/counts.ts";
import { plainText } from "../../protocol/plain-text.ts";
import { textWidth, truncateEnd } from "../fit.ts";
import { answerText, expandTabs } from "../markdown/index.ts";
import type { Entry } from "../state/index.ts";
import { ColumnsText } from "./columns-text.ts";
import { diffTone, toneProps } from "./tone.ts";
import { keyArgument, outcomeLines, type ToneLine } from "./tool-view.ts";

const h = React.createElement;

type ToolEntry = Extract<Entry, { type: "tool" }>;

function toolColor(entry: ToolEntry): string {
  const outcome = entry.outcome;
  if (outcome === null) return "yellow";
  if (outcome.type === "refused" || (outcome.type === "result" && outcome.isError)) return "red";
  if (outcome.type === "interrupted") return "yellow";
  return "green";
}

// Steps of a running child shown under its call; the rest are counted (Ctrl-O shows them all later).
const liveChildSteps = 3;

/** A child agent's block: its last steps while it runs, one line once its call has a result. */
function childLines(entry: ToolEntry, columns = 200): ToneLine[] {
  const child = entry.child;
  if (!child) return [];
  const width = Math.max(20, columns - 8);
  const count = `${child.count} step${child.count === 1 ? "" : "s"}`;
  if (entry.outcome === null) {
    const shown = child.steps.slice(-liveChildSteps);
    return [
      { text: truncateEnd(`${child.who}: ${count} so far`, width), tone: "dim" },
      ...shown.map((step) => ({
        text: truncateEnd(`· ${plainText(step)}`, width),
        tone: "dim" as const,
      })),
    ];
  }
  return [
    {
      text: truncateEnd(`${child.who}: ${count} · Ctrl-O shows them`, width),
      tone: "dim",
    },
  ];
}

/** A running command's output as it comes: how much so far, then its last lines, cut to the width. */
function liveLines(live: NonNullable<ToolEntry["live"]>, columns = 200): ToneLine[] {
  const width = Math.max(20, columns - 6);
  const tail = live.tail
    .split("\n")
    .slice(-2)
    .map((line) => ({
      text: truncateEnd(expandTabs(plainText(line)), width),
      tone: "dim" as const,
    }));
  return [
    { text: `running… ${formatLines(live.lines)}, ${formatSize(live.bytes)} so far`, tone: "dim" },
    ...tail,
  ];
}

/** A tool call as a compact block: the tool, its key argument, and what really happened. */
export function ToolBlock(props: {
  entry: ToolEntry;
  columns?: number;
  /** A committed block's headline wraps; a live one keeps to one row. */
  wrapHeadline?: boolean;
}): React.ReactElement {
  const { entry } = props;
  const lines =
    entry.outcome === null && entry.live
      ? liveLines(entry.live, props.columns)
      : [
          ...outcomeLines(entry.outcome, entry.started, entry.progress),
          ...childLines(entry, props.columns),
        ];
  // A permission summary may start with the tool's name, which the headline already shows.
  const name = plainText(entry.name);
  // One line, like keyArgument: a live block has a budget of one headline row.
  const raw = plainText(entry.summary ?? "").replace(/\s*\n\s*/g, " ⏎ ");
  const summary = raw.replace(new RegExp(`^${name.replace(/[^\w]/g, "\\$&")}:? `), "");
  const full = keyArgument(entry.args) || summary;
  // Live blocks keep to one headline row; committed ones may wrap.
  const what =
    props.columns && !props.wrapHeadline
      ? truncateEnd(full, props.columns - textWidth(name) - 4)
      : full;
  return h(
    Box,
    { flexDirection: "column", marginTop: 1 },
    h(
      Text,
      null,
      h(Text, { color: toolColor(entry) }, "● "),
      h(Text, { bold: true }, name),
      h(Text, null, ` ${what}`),
    ),
    ...lines.map((line, i) =>
      h(
        Hanging,
        { key: i, prefix: i === 0 ? "  ⎿ " : "    ", columns: props.columns },
        h(Text, { ...toneProps(line.tone), wrap: "wrap" }, expandTabs(plainText(line.text))),
      ),
    ),
  );
}

/**
 * `prefix` (dim) then the body wrapped beside it. The body's width is set, not left to flex: Ink
 * measures a text in a row at the row's whole width, so a shrinking box still printed lines as wide
 * as the terminal after the prefix and the terminal broke their words.
 */
function Hanging(props: {
  prefix: string;
  columns: number | undefined;
  children?: React.ReactNode;
}): React.ReactElement {
  const prefixWidth = textWidth(props.prefix);
  const body =
    props.columns === undefined ? {} : { width: Math.max(1, props.columns - prefixWidth) };
  return h(
    Box,
    { flexDirection: "row" },
    h(Box, { width: prefixWidth, flexShrink: 0 }, h(Text, { dimColor: true }, props.prefix)),
    h(Box, body, props.children),
  );
}

/** One committed (or live) block of the chat. */
export function EntryView(props: { entry: Entry; columns: number }): React.ReactElement {
  const { entry } = props;
  switch (entry.type) {
    case "user":
      return h(
        Box,
        { marginTop: 1 },
        h(Text, { color: "cyan", bold: true }, "› "),
        h(
          Box,
          { width: Math.max(1, props.columns - 2) },
          h(Text, { bold: true }, expandTabs(plainText(entry.text))),
        ),
      );
    case "assistant":
      return h(
        Box,
        { marginTop: entry.continued ? 0 : 1 },
        h(Text, null, answerText(entry.text, props.columns)),
      );
    case "tool":
      return h(ToolBlock, { entry, columns: props.columns, wrapHeadline: true });
    case "error":
      return h(
        Box,
        {
          flexDirection: "column",
          marginTop: 1,
          borderStyle: "round",
          borderColor: "red",
          paddingX: 1,
        },
        h(Text, { color: "red", bold: true }, plainText(entry.title)),
        h(Text, { wrap: "wrap" }, expandTabs(plainText(entry.message))),
      );
    case "info":
      if (entry.tone === "diff") return diffView(entry.text);
      if (entry.table)
        return h(
          Box,
          { marginTop: 1 },
          h(ColumnsText, {
            text: expandTabsOutsideTable(plainText(entry.text)),
            columns: props.columns,
            textProps: toneProps(entry.tone === "warn" ? "warn" : entry.tone),
          }),
        );
      return h(
        Box,
        { marginTop: 1 },
        h(
          Text,
          { ...toneProps(entry.tone === "warn" ? "warn" : entry.tone), wrap: "wrap" },
          expandTabs(plainText(entry.text)),
        ),
      );
  }
}

/** `/diff`'s text: a file's heading bold, added lines green, removed red, context dim. */
function diffView(text: string): React.ReactElement {
  const lines = expandTabs(plainText(text)).split("\n");
  const tone = (line: string) =>
    /^[-+@ \\]/.test(line)
      ? diffTone(line)
      : / \((changed|created|deleted)\)/.test(line)
        ? { bold: true }
        : {};
  return h(
    Box,
    { marginTop: 1, flexDirection: "column" },
    ...lines.map((line, i) => h(Text, { key: `d${i}`, ...tone(line), wrap: "wrap" }, line || " ")),
  );
}

// A table row's first tab separates its columns; any other tab is spaces, as everywhere.
function expandTabsOutsideTable(text: string): string {
  return text
    .split("\n")
    .map((line) => {
      const tab = line.indexOf("\t");
      return tab < 0
        ? expandTabs(line)
        : `${expandTabs(line.slice(0, tab))}\t${expandTabs(line.slice(tab + 1))}`;
    })
    .join("\n");
}

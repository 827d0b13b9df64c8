// `/model`'s picker: the models this endpoint serves (from its /v1/models, or the config's list),
// the one in use marked, and the config's other named endpoints, which a session cannot move to:
// choosing one says how to start nex there. Up/Down choose, Enter picks, Esc leaves unchanged.
import { Box, Text } from "ink";
import React from "react";
import { plainText } from "../../protocol/plain-text.ts";
import type { ModelChoices } from "../../runtime/session/index.ts";
import { fitToWidth, windowAround } from "../fit.ts";

const h = React.createElement;

/** A row: a model of this endpoint, or another endpoint of the config. */
export type ModelRow = { type: "model"; name: string } | { type: "endpoint"; name: string };

export interface ModelPickerState {
  rows: ModelRow[];
  index: number;
  current: string;
  source: string;
}

/** The picker on the model in use, or null when there is nothing to choose from. */
export function openModelPicker(choices: ModelChoices): ModelPickerState | null {
  const rows: ModelRow[] = [
    ...(choices.models ?? []).map((name) => ({ type: "model" as const, name })),
    ...choices.otherEndpoints.map((name) => ({ type: "endpoint" as const, name })),
  ];
  if (rows.length === 0) return null;
  const inUse = rows.findIndex((row) => row.type === "model" && row.name === choices.current);
  return { rows, index: Math.max(0, inUse), current: choices.current, source: choices.source };
}

/** The next state, or what was chosen (null: Esc). */
export function modelPickerKey(
  state: ModelPickerState,
  key: { upArrow?: boolean; downArrow?: boolean; return?: boolean; escape?: boolean },
): { state: ModelPickerState } | { chosen: ModelRow | null } {
  if (key.upArrow) return { state: { ...state, index: Math.max(0, state.index - 1) } };
  if (key.downArrow)
    return { state: { ...state, index: Math.min(state.rows.length - 1, state.index + 1) } };
  if (key.return) return { chosen: state.rows[state.index] ?? null };
  if (key.escape) return { chosen: null };
  return { state };
}

/** What choosing another endpoint means: a session keeps its endpoint. */
export function otherEndpointLine(name: string, current: string): string {
  return `${name} is another endpoint of your config, and a session keeps its endpoint. Start nex with -e ${name} to use it; this chat stays on ${current}.`;
}

function label(row: ModelRow, current: string): string {
  if (row.type === "endpoint") return `endpoint ${row.name} (start nex with -e ${row.name})`;
  return row.name === current ? `${row.name} (in use)` : row.name;
}

export function ModelPicker(props: {
  state: ModelPickerState;
  columns: number;
  maxRows: number;
}): React.ReactElement {
  const { rows, index, current, source } = props.state;
  const { start, end } = windowAround(rows.length, index, props.maxRows);
  const width = Math.max(10, props.columns - 6);
  return h(
    Box,
    { flexDirection: "column", borderStyle: "round", borderColor: "cyan", paddingX: 1 },
    h(
      Text,
      { bold: true, color: "cyan", wrap: "truncate-end" },
      fitToWidth(`Choose a model · ${plainText(source)}`, width),
    ),
    ...rows.slice(start, end).map((row, i) => {
      const chosen = start + i === index;
      return h(
        Text,
        {
          key: `${row.type}:${row.name}`,
          inverse: chosen,
          dimColor: row.type === "endpoint" && !chosen,
          wrap: "truncate-end",
        },
        `${chosen ? "›" : " "} ${fitToWidth(plainText(label(row, current)), width - 2)}`,
      );
    }),
    h(
      Text,
      { dimColor: true, wrap: "truncate-end" },
      "↑/↓ choose · Enter switches · Esc keeps the model",
    ),
  );
}

import { Text } from "ink";
import React, { useEffect, useState } from "react";
import type { PermissionMode } from "../../protocol/index.ts";
import { plainText } from "../../protocol/plain-text.ts";
import { textWidth, truncateEnd } from "../fit.ts";
import {
  cacheLabel,
  contextFill,
  type MeterState,
  type StatusState,
  spinnerOn,
  statusText,
  windowSourceLabel,
} from "../state/index.ts";

const h = React.createElement;
const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Re-renders every `ms` while `active`, for the elapsed time and the countdown. */
export function useClock(active: boolean, ms: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [active, ms]);
  return active ? now : Date.now();
}

/** Properties of the status bar. */
export interface StatusBarProps {
  status: StatusState;
  meter: MeterState;
  mode: PermissionMode;
  /** A transient hint of the TUI's own, shown when nothing is in flight. */
  hint: string | null;
  columns: number;
}

/** The sandbox as the status bar shows it: quiet when it confines commands, loud when it does not. */
function sandboxTag(meter: MeterState): string {
  const sandbox = meter.sandbox;
  if (!sandbox) return "";
  if (sandbox.state === "off") return " UNSANDBOXED";
  if (sandbox.state === "unavailable") return " NO SANDBOX";
  return sandbox.mode === "read-only" ? " ⛨ read-only" : " ⛨";
}

/** The right side, as long as the terminal allows: mode, sandbox, context fill, model, window source. */
function rightSide(meter: MeterState, mode: PermissionMode, room: number): string[] {
  const fill = contextFill(meter);
  // Plan mode says what it means: nothing the model does changes anything.
  const head = mode === "plan" ? `⏸ plan: read-only` : `⏵ ${mode}${sandboxTag(meter)}`;
  const cache = cacheLabel(meter);
  const cached = cache ? ` · ${cache}` : "";
  const options = [
    [head, ` · ${meter.model} · ${fill}${cached} (${windowSourceLabel(meter.windowSource)})`],
    [head, ` · ${meter.model} · ${fill} (${windowSourceLabel(meter.windowSource)})`],
    [head, ` · ${fill}${cached}`],
    [head, ` · ${fill} (${windowSourceLabel(meter.windowSource)})`],
    [head, ` · ${fill}`],
    [head, ""],
  ];
  return options.find(([a, b]) => textWidth(`${a}${b}`) <= room) ?? ["", ""];
}

/** One row: spinner or countdown on the left, permission mode and context fill on the right. */
export function StatusBar(props: StatusBarProps): React.ReactElement {
  const { status, meter, mode, hint } = props;
  const width = Math.max(10, props.columns - 1);
  const ticking = spinnerOn(status) || status.retry !== null || status.tools.length > 0;
  const now = useClock(ticking, 100);
  // It names the running tool, as the model called it.
  const words = plainText(statusText(status, now));
  const [modeText, rest] = rightSide(meter, mode, width - 24);
  const right = `${modeText}${rest}`;
  const leftRoom = Math.max(0, width - textWidth(right) - 1);
  const glyph = spinnerOn(status)
    ? `${frames[Math.floor(now / 100) % frames.length]} `
    : status.retry
      ? "↻ "
      : "";
  const left = truncateEnd(`${glyph}${words !== "" ? words : (hint ?? "")}`, leftRoom);
  const pad = " ".repeat(Math.max(1, width - textWidth(left) - textWidth(right)));
  const leftColor = spinnerOn(status) ? "cyan" : status.retry ? "yellow" : undefined;
  const unconfined = meter.sandbox !== null && meter.sandbox.state !== "active";
  const modeColor =
    mode === "plan"
      ? "cyan"
      : mode === "approve_all" || unconfined
        ? "red"
        : mode === "auto_edit"
          ? "yellow"
          : "green";
  return h(
    Text,
    { wrap: "truncate-end" },
    h(Text, leftColor ? { color: leftColor } : { dimColor: true }, left),
    pad,
    h(Text, { color: modeColor }, modeText),
    h(Text, { dimColor: true }, rest),
  );
}

import { Box, Text } from "ink";
import React, { useEffect, useState } from "react";
import type { PermissionMode } from "../../protocol/index.ts";
import { contextFill, type MeterState, windowSourceLabel } from "../meter.ts";
import { type StatusState, spinnerOn, statusText } from "../status.ts";

const h = React.createElement;
const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** Re-renders every `ms` while `active`, for the elapsed time and the countdown. */
function useClock(active: boolean, ms: number): number {
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
}

/** Spinner or countdown on the left, permission mode and context fill on the right. */
export function StatusBar(props: StatusBarProps): React.ReactElement {
  const { status, meter, mode, hint } = props;
  const ticking = spinnerOn(status) || status.retry !== null || status.tools.length > 0;
  const now = useClock(ticking, 100);
  const words = statusText(status, now);
  const left = spinnerOn(status)
    ? h(
        Text,
        null,
        h(Text, { color: "cyan" }, `${frames[Math.floor(now / 100) % frames.length]} `),
        words,
      )
    : status.retry
      ? h(Text, { color: "yellow", wrap: "truncate-end" }, `⏳ ${words}`)
      : words !== ""
        ? h(Text, { dimColor: true, wrap: "truncate-end" }, words)
        : h(Text, { dimColor: true, wrap: "truncate-end" }, hint ?? "");
  const modeColor = mode === "approve_all" ? "red" : mode === "auto_edit" ? "yellow" : "green";
  return h(
    Box,
    { flexDirection: "row", justifyContent: "space-between" },
    h(Box, { flexShrink: 1, flexGrow: 1, overflow: "hidden" }, left),
    h(
      Box,
      { flexShrink: 0, marginLeft: 1 },
      h(
        Text,
        { dimColor: true },
        h(Text, { color: modeColor }, `⏵ ${mode}`),
        ` · ${meter.model} · ${contextFill(meter)} (${windowSourceLabel(meter.windowSource)})`,
      ),
    ),
  );
}

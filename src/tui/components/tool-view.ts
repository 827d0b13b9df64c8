import { formatBytes, formatLines } from "../../protocol/counts.ts";
import { formatCount, type ToolDetails } from "../../protocol/index.ts";
import { plainText } from "../../protocol/plain-text.ts";
import type { ToolOutcomeView } from "../state/index.ts";

/** How a line of a tool block is coloured. */
export type Tone = "plain" | "dim" | "good" | "bad" | "warn" | "added" | "removed" | "hunk";

/** One line of a tool block. */
export interface ToneLine {
  text: string;
  tone: Tone;
}

/** Diff lines shown per tool block before "… N more". */
export const maxDiffLines = 16;
/** Output lines of `bash` shown (its tail). */
export const maxTailLines = 8;

function oneLine(text: string, max = 80): string {
  const flat = plainText(text).replace(/\s*\n\s*/g, " ⏎ ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The call's key argument: the path, the command, the pattern. */
export function keyArgument(args: Record<string, unknown>): string {
  for (const key of ["path", "file_path", "command", "pattern", "query", "url"]) {
    const value = args[key];
    if (typeof value === "string" && value !== "")
      return key === "command" ? `$ ${oneLine(value)}` : oneLine(value);
  }
  for (const value of Object.values(args)) {
    if (typeof value === "string" && value !== "") return oneLine(value, 60);
  }
  return "";
}

/** A unified diff as coloured lines, headers dropped, cut after `max` lines. */
export function diffLines(diff: string, max = maxDiffLines): ToneLine[] {
  const body = diff
    .split("\n")
    .filter((line) => !/^(Index: |={3,}|--- |\+\+\+ |\\ No newline)/.test(line))
    .filter((line, i, all) => !(line === "" && i === all.length - 1));
  const shown: ToneLine[] = body.slice(0, max).map((line) => {
    if (line.startsWith("@@")) return { text: line, tone: "hunk" };
    if (line.startsWith("+")) return { text: line, tone: "added" };
    if (line.startsWith("-")) return { text: line, tone: "removed" };
    return { text: line, tone: "dim" };
  });
  if (body.length > max)
    shown.push({ text: `… ${body.length - max} more diff lines`, tone: "dim" });
  return shown;
}

function tail(text: string, max = maxTailLines): ToneLine[] {
  const all = text.replace(/\n+$/, "").split("\n");
  if (all.length === 1 && all[0] === "") return [];
  const shown = all.slice(-max).map((line) => ({ text: line, tone: "dim" as const }));
  return all.length > max
    ? [{ text: `… ${all.length - max} earlier lines`, tone: "dim" }, ...shown]
    : shown;
}

function detailLines(details: ToolDetails): ToneLine[] {
  switch (details.type) {
    case "write": {
      const onDisk = `${formatBytes(details.bytes)}, ${formatLines(details.lines)} on disk (sha ${details.hash.slice(0, 8)})`;
      const head = details.created
        ? `created: ${onDisk}`
        : `overwrote ${formatBytes(details.previousBytes)}: now ${onDisk}`;
      return [{ text: head, tone: "good" }, ...diffLines(details.diff)];
    }
    case "edit": {
      const count = `${details.replacements} replacement${details.replacements === 1 ? "" : "s"}`;
      const head = `edited (${count}): now ${formatBytes(details.bytes)}, ${formatLines(details.lines)} on disk (sha ${details.hash.slice(0, 8)})`;
      return [{ text: head, tone: "good" }, ...diffLines(details.diff)];
    }
    case "part_staged":
      return [
        {
          text: `part ${details.part} of ${details.parts} staged (${formatBytes(details.bytes)}); the file is written when the last part arrives`,
          tone: "warn",
        },
      ];
    case "read":
      return [
        {
          text: `read ${formatLines(details.lines)} of ${formatCount(details.totalLines)}${details.complete ? "" : " (partial)"}`,
          tone: "dim",
        },
      ];
    case "bash": {
      const how = details.timedOut
        ? { text: "timed out and was stopped", tone: "bad" as const }
        : details.signal
          ? { text: `killed by ${details.signal}`, tone: "bad" as const }
          : {
              text: `exit ${details.exitCode ?? "?"}`,
              tone: details.exitCode === 0 ? ("good" as const) : ("bad" as const),
            };
      return [how, ...tail(details.tail)];
    }
    case "web":
      return [
        {
          text: `${details.title ? `${oneLine(details.title, 60)}: ` : ""}${formatBytes(details.bytes)} of text${details.url ? ` from ${oneLine(details.url, 70)}` : ""}`,
          tone: "dim",
        },
      ];
    case "list":
      return [
        {
          text: `${formatCount(details.count)} entries${details.truncated ? " (list cut short)" : ""}`,
          tone: "dim",
        },
      ];
    case "todo":
      return details.items.map((item) => ({
        text: `${item.status === "completed" ? "✔" : item.status === "in_progress" ? "▶" : "○"} ${item.content}`,
        tone:
          item.status === "completed" ? "dim" : item.status === "in_progress" ? "good" : "plain",
      }));
  }
}

function refusalCause(cause: Extract<ToolOutcomeView, { type: "refused" }>["cause"]): string {
  switch (cause) {
    case "denied":
      return "denied";
    case "invalid_arguments":
      return "refused: invalid arguments";
    case "output_limit":
      return "refused: the model's output was cut off by its token limit";
    case "stream_dropped":
      return "refused: the response stream ended early";
    case "abnormal_stop":
      return "refused: the response ended abnormally";
    case "unparseable":
      return "refused: the arguments are not valid JSON";
    case "not_an_object":
      return "refused: the arguments are not a JSON object";
    case "repeated_call":
      return "not run again: same call, same result as before";
  }
}

/** The lines under a tool block's headline. */
export function outcomeLines(
  outcome: ToolOutcomeView | null,
  started = true,
  progress?: string,
): ToneLine[] {
  if (outcome === null) {
    if (started && progress) return [{ text: `running… ${oneLine(progress)}`, tone: "dim" }];
    return [{ text: started ? "running…" : "waiting for your approval", tone: "dim" }];
  }
  switch (outcome.type) {
    case "interrupted":
      return started
        ? [{ text: "no result: the turn ended before the tool finished", tone: "warn" }]
        : [{ text: "not run: the turn ended before it was approved", tone: "warn" }];
    case "refused":
      return [
        { text: `${refusalCause(outcome.cause)} — nothing was run or written`, tone: "bad" },
        { text: outcome.reason, tone: "plain" },
        ...(outcome.bytesReceived > 0
          ? [
              {
                text: `${formatBytes(outcome.bytesReceived)} of arguments received`,
                tone: "dim" as const,
              },
            ]
          : []),
      ];
    case "result": {
      if (outcome.isError) {
        const text = outcome.content.split("\n").slice(0, 6).join("\n");
        return [{ text: `${outcome.code ?? "error"}: ${text}`, tone: "bad" }];
      }
      if (outcome.details) return detailLines(outcome.details);
      return tail(outcome.content, 4);
    }
  }
}

// The one door through which tool outcomes reach the loop: whatever a tool read or a command printed
// has nex's secrets replaced before the model, a UI, `--json` or the journal sees it.
import type { ToolDetails, ToolHost, ToolInvocation, ToolOutcome } from "../../protocol/index.ts";
import type { SecretScrubber } from "../../session/index.ts";

/** The tool host with every outcome, permission summary and refusal reason scrubbed of secrets. */
export function scrubbedTools<T extends ToolHost>(host: T, scrubber: SecretScrubber): T {
  if (!scrubber.active) return host;
  const text = (value: string) => scrubber.scrub(value).text;
  return {
    ...host,
    async permission(call) {
      const check = await host.permission(call);
      if (check.type === "ask") return { ...check, summary: text(check.summary) };
      if (check.type === "deny") return { ...check, reason: text(check.reason) };
      return check;
    },
    notices: () => (host.notices?.() ?? []).map(text),
    // Paths the model hears in a hint (a file an invented tool was named after).
    ...(host.filesNamed
      ? {
          filesNamed: async (name: string, limit: number, signal: AbortSignal) =>
            ((await host.filesNamed?.(name, limit, signal)) ?? []).map(text),
        }
      : {}),
    endOfPrompt: async () => ((await host.endOfPrompt?.()) ?? []).map(text),
    async execute(call, signal) {
      const marker = markerIn(call, scrubber, host);
      if (marker) return refuseMarker(marker);
      const outcome = await host.execute(call, signal);
      return {
        ...outcome,
        content: text(outcome.content),
        ...(outcome.details ? { details: scrubDetails(outcome.details, text) } : {}),
      };
    },
  };
}

function scrubDetails(details: ToolDetails, text: (value: string) => string): ToolDetails {
  switch (details.type) {
    case "write":
    case "edit":
      return { ...details, diff: text(details.diff) };
    case "bash":
      return { ...details, command: text(details.command), tail: text(details.tail) };
    default:
      return details;
  }
}

/**
 * The redaction marker a changing call would write: the model saw `[redacted: OPENAI_API_KEY]` where
 * a file holds the key, and writing the marker back would replace the user's secret with it.
 */
function markerIn(call: ToolInvocation, scrubber: SecretScrubber, host: ToolHost): string | null {
  if (host.readOnly?.(call.name)) return null;
  const strings: string[] = [];
  const collect = (value: unknown, depth: number): void => {
    if (typeof value === "string") strings.push(value);
    else if (typeof value === "object" && value !== null && depth < 8)
      for (const item of Object.values(value)) collect(item, depth + 1);
  };
  collect(call.args, 0);
  for (const text of strings) {
    if (!text.includes("[redacted: ")) continue;
    for (const found of text.matchAll(/\[redacted: ([^\]\n]{1,80})\]/g))
      if (found[1] && scrubber.names.has(found[1])) return found[0];
  }
  return null;
}

function refuseMarker(marker: string): ToolOutcome {
  return {
    isError: true,
    code: "placeholder",
    content: `Not run: the arguments contain ${marker}, which nex shows in place of a secret it keeps from you; writing it would replace the user's secret with that text. Leave the lines that hold it untouched (edit_file around them), or ask the user to change them.`,
  };
}

// nex's approvals as ACP permission options, and the editor's choice back as nex's answer.
import type { PermissionOption, RequestPermissionOutcome } from "@agentclientprotocol/sdk";
import type { PermissionAnswer } from "../protocol/index.ts";

export const PERMISSION_OPTIONS: PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow in this session", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
  { optionId: "reject_always", name: "Always reject in this session", kind: "reject_always" },
];

/** What the editor's answer means for nex; `rejectAlways` asks the bridge to refuse the like unasked. */
export function answerOf(outcome: RequestPermissionOutcome): {
  answer: PermissionAnswer;
  rejectAlways: boolean;
} {
  if (outcome.outcome === "cancelled")
    return {
      answer: { type: "deny", reason: "the editor cancelled the question" },
      rejectAlways: false,
    };
  switch (outcome.optionId) {
    case "allow_once":
      return { answer: { type: "allow_once" }, rejectAlways: false };
    case "allow_always":
      return { answer: { type: "allow_session" }, rejectAlways: false };
    case "reject_always":
      return {
        answer: {
          type: "deny",
          reason: "the user rejected it, and calls like it, for this session",
        },
        rejectAlways: true,
      };
    case "reject_once":
      return {
        answer: { type: "deny", reason: "the user rejected it in the editor" },
        rejectAlways: false,
      };
    default:
      // An option nex did not offer: no is the only safe reading.
      return {
        answer: {
          type: "deny",
          reason: `the editor answered with an option nex did not offer (${outcome.optionId})`,
        },
        rejectAlways: false,
      };
  }
}

/**
 * What "always reject" covers: a command by its exact text, any other tool by its name (every edit,
 * every write), so a rejected `rm -rf build` does not also reject `npm test`.
 */
export function rejectionKey(name: string, args: Record<string, unknown>): string {
  return name === "bash" && typeof args.command === "string" ? `bash\u0000${args.command}` : name;
}

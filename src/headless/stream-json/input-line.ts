import { parseJson } from "../../protocol/index.ts";
/** One line of `--input-format stream-json`, understood. */
export type InputLine =
  /**
   * `priority` as Claude Code's input reads it: "later" (the default) runs as the next prompt once
   * the running one ends; "next" reaches the model at the running prompt's next turn boundary;
   * "now" too, ahead of "next" ones (a steering note).
   */
  | { type: "user"; text: string; priority: UserPriority; urgent?: boolean }
  | {
      type: "control_request";
      requestId: string;
      subtype: string;
      request: Record<string, unknown>;
    }
  | {
      type: "control_response";
      requestId: string;
      ok: boolean;
      response: Record<string, unknown>;
      error: string;
    }
  /** A line nex has nothing to do with (keep-alives, cancels of requests it never made). */
  | { type: "ignored" }
  | { type: "invalid"; message: string };

/** Reads one stdin line as Claude Code reads it: a user message, a control request or a control response. */
export function readInputLine(line: string): InputLine {
  let value: unknown;
  try {
    value = parseJson(line);
  } catch (error) {
    return {
      type: "invalid",
      message: `is not JSON (${(error as Error).message}); each line must be one JSON object such as {"type":"user","message":{"role":"user","content":"..."}}`,
    };
  }
  if (!isObject(value) || typeof value.type !== "string")
    return { type: "invalid", message: 'is not a JSON object with a "type"' };
  switch (value.type) {
    case "user":
      return userLine(value);
    case "control_request": {
      const request = value.request;
      if (
        typeof value.request_id !== "string" ||
        !isObject(request) ||
        typeof request.subtype !== "string"
      )
        return {
          type: "invalid",
          message:
            'is a control_request without a string "request_id" and a "request" with a "subtype"',
        };
      return {
        type: "control_request",
        requestId: value.request_id,
        subtype: request.subtype,
        request,
      };
    }
    case "control_response": {
      const response = value.response;
      if (!isObject(response) || typeof response.request_id !== "string")
        return { type: "invalid", message: 'is a control_response without "response.request_id"' };
      return {
        type: "control_response",
        requestId: response.request_id,
        ok: response.subtype === "success",
        response: isObject(response.response) ? response.response : {},
        error: typeof response.error === "string" ? response.error : "",
      };
    }
    case "keep_alive":
    case "control_cancel_request":
    case "update_environment_variables":
      return { type: "ignored" };
    default:
      return {
        type: "invalid",
        message: `has type "${value.type}"; nex reads "user", "control_request" and "control_response" lines`,
      };
  }
}

export type UserPriority = "now" | "next" | "later";

function userLine(value: Record<string, unknown>): InputLine {
  // nex's own mark (docs/headless.md): the running prompt is cancelled and this one runs next.
  if (value.urgent === true || value.priority === "urgent") {
    const line = userLine({ ...value, urgent: undefined, priority: "later" });
    return line.type === "user" ? { ...line, urgent: true } : line;
  }
  const priority = value.priority ?? "later";
  if (priority !== "now" && priority !== "next" && priority !== "later")
    return {
      type: "invalid",
      message: `has priority ${JSON.stringify(priority)}; it is "now", "next" or "later" (the default)`,
    };
  const message = value.message;
  if (!isObject(message) || message.role !== "user")
    return { type: "invalid", message: 'is a user line without a "message" whose role is "user"' };
  const content = message.content;
  if (typeof content === "string") return nonEmpty(content, priority);
  if (!Array.isArray(content))
    return {
      type: "invalid",
      message: "has a message content that is neither a string nor a list of blocks",
    };
  const texts: string[] = [];
  for (const block of content) {
    if (!isObject(block))
      return { type: "invalid", message: "has a content block that is not an object" };
    if (block.type === "text" && typeof block.text === "string") texts.push(block.text);
    else
      return {
        type: "invalid",
        message: `has a "${String(block.type)}" content block; nex takes text blocks only (nothing of this message was sent)`,
      };
  }
  return nonEmpty(texts.join("\n\n"), priority);
}

function nonEmpty(text: string, priority: UserPriority): InputLine {
  return text.trim()
    ? { type: "user", text, priority }
    : { type: "invalid", message: "is a user message with no text" };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// Keys in URLs a tool call names (a `url` argument: `?api_key=…`, `?token=…`) are replaced before
// an event reaches a UI, `--json` or the journal. The call itself ran with the URL as given.
import type { AgentEvent } from "../../protocol/index.ts";
import { redactUrl, redactUrlsIn } from "../../web/redact-url.ts";

/** The event with secret-looking URL parameters of tool calls redacted; the same object when none. */
export function redactCallUrls(event: AgentEvent): AgentEvent {
  if (event.type === "tool_call_started" && typeof event.args.url === "string") {
    const url = redactUrl(event.args.url);
    return url === event.args.url ? event : { ...event, args: { ...event.args, url } };
  }
  if (event.type === "message_added" && event.message.type === "assistant") {
    const { message } = event;
    const calls = message.toolCalls.map((call) =>
      call.argumentsText.includes('"url"')
        ? { ...call, argumentsText: redactUrlsIn(call.argumentsText) }
        : call,
    );
    if (calls.every((call, i) => call === message.toolCalls[i])) return event;
    return { ...event, message: { ...message, toolCalls: calls } };
  }
  return event;
}

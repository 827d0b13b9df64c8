// Tells a terminal in the background that a long task ended or an answer is needed: the terminal's
// own notification where it has one (OSC 9: iTerm2, WezTerm, Ghostty; OSC 777: VTE terminals, foot,
// rxvt), else the bell. Where the terminal reports focus (`CSI ? 1004 h`), nothing is sent while the
// user is looking; where it does not, a long task's end is always told.
import type { AgentEvent } from "../protocol/index.ts";
import type { AgentSession } from "../runtime/session/index.ts";

/** The escape sequence that carries a notification, for this terminal and mode; null: none. */
export type NotifySequence = (title: string, body: string) => string;

const OSC9_TERMINALS = /^(iTerm\.app|WezTerm|ghostty)$/i;
const OSC777_TERMINALS = /^(foot|rxvt|urxvt|contour|konsole)$/i;

/** How this terminal is notified: by `TERM_PROGRAM` (and VTE), or the bell. */
export function notifySequence(
  mode: "auto" | "bell" | "off",
  env: Record<string, string | undefined>,
): NotifySequence | null {
  if (mode === "off") return null;
  const program = env.TERM_PROGRAM ?? "";
  if (mode === "auto" && OSC9_TERMINALS.test(program))
    return (title, body) => `\x1b]9;${clean(`${title}: ${body}`)}\x07`;
  if (mode === "auto" && (OSC777_TERMINALS.test(program) || env.VTE_VERSION))
    return (title, body) => `\x1b]777;notify;${clean(title).replace(/;/g, ",")};${clean(body)}\x07`;
  return () => "\x07";
}

// Control characters would end the sequence early or be run by the terminal.
function clean(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed
  const flat = text.replace(/[\x00-\x1f\x7f-\x9f]+/g, " ").trim();
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat;
}

/** Focus reports as Ink hands them to an input handler (its escape stripped). */
export const FOCUS_IN = "[I";
export const FOCUS_OUT = "[O";

/** What the chat's notifier needs. */
export interface NotifierOptions {
  write(text: string): void;
  env: Record<string, string | undefined>;
  now?: () => number;
}

/** A running notifier: tell it focus changes; stop it when the chat ends. */
export interface Notifier {
  focus(focused: boolean): void;
  stop(): void;
}

/** Starts notifying for `session` as its settings say; the terminal is asked to report focus. */
export function startNotifier(session: AgentSession, options: NotifierOptions): Notifier {
  const settings = session.info.notifications ?? { mode: "auto", afterSeconds: 10 };
  const sequence = notifySequence(settings.mode, options.env);
  const now = options.now ?? Date.now;
  if (!sequence) return { focus: () => {}, stop: () => {} };
  // null until the terminal reports: many never do.
  let focused: boolean | null = null;
  let startedAt: number | null = null;
  const long = () => startedAt !== null && now() - startedAt >= settings.afterSeconds * 1000;
  const tell = (body: string) => options.write(sequence("nex", body));
  const unsubscribe = session.subscribe((event: AgentEvent) => {
    if (event.type === "message_added" && event.message.type === "user") startedAt ??= now();
    else if (event.type === "request_started" || event.type === "tool_call_started")
      startedAt ??= now();
    else if (event.type === "permission_requested") {
      if (focused === false || (focused === null && long()))
        tell(`needs your permission: ${event.summary}`);
    } else if (event.type === "done" || event.type === "error" || event.type === "aborted") {
      const seconds = startedAt === null ? 0 : Math.round((now() - startedAt) / 1000);
      // An interrupt is the user at the keyboard; a task seen ending needs no notice.
      if (event.type !== "aborted" && long() && focused !== true)
        tell(
          event.type === "done"
            ? `task finished after ${seconds} s`
            : `task stopped with an error after ${seconds} s`,
        );
      startedAt = null;
    }
  });
  if (settings.mode === "auto") options.write("\x1b[?1004h");
  return {
    focus: (value) => {
      focused = value;
    },
    stop: () => {
      unsubscribe();
      if (settings.mode === "auto") options.write("\x1b[?1004l");
    },
  };
}

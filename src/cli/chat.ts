// The interactive chat: open a session (a picked one for `nex resume` with no id), run the UI, and
// when the user switches sessions with /resume, close this one and open the next, in place.
import { resolve } from "node:path";
import { openSession } from "../runtime/assembly/index.ts";
import { listSessionsFor } from "../runtime/history/index.ts";
import { runTui } from "../tui/index.ts";
import type { CommonOptions } from "./args.ts";

/** Runs the chat until the user leaves it; returns the exit code. */
export async function runChat(
  options: CommonOptions,
  resume: string | null,
  role?: string,
): Promise<number> {
  const first = resume === "pick" ? await pickResume(options) : resume;
  if (first === undefined) return 0;
  let target: string | null = first;
  let arrival: string | undefined;
  for (;;) {
    const next: { id?: string; line?: string | undefined } = {};
    const code = await chatIn(options, target, arrival, role, (id, line) => {
      next.id = id;
      next.line = line;
    });
    if (next.id === undefined) return code;
    target = next.id;
    arrival = next.line;
  }
}

// `nex resume` with no id: the picker on a terminal, else the last session; undefined when the user left it.
async function pickResume(options: CommonOptions): Promise<string | null | undefined> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) return "last";
  const sessions = await listSessionsFor(options, process.env, process.cwd());
  const workspace = resolve(process.cwd(), options.cwd ?? ".");
  const here = sessions.filter((s) => resolve(s.workspace) === workspace);
  // Sessions are per workspace: another project's is never offered here, where its edits would land.
  if (here.length === 0) {
    const others = sessions.length;
    process.stderr.write(
      others === 0
        ? "nex: no saved sessions yet; starting a new one.\n"
        : `nex: no saved sessions in this workspace (${others} in other projects: \`nex sessions\` lists them; resume one from its own folder); starting a new one.\n`,
    );
    return null;
  }
  const { pickSession } = await import("../tui/commands/index.ts");
  const picked = await pickSession(here);
  return picked ?? undefined;
}

async function chatIn(
  options: CommonOptions,
  resume: string | null,
  arrival: string | undefined,
  role: string | undefined,
  onSwitch: (id: string, line: string | undefined) => void,
): Promise<number> {
  const opened = await openSession(options, process.env, process.cwd(), {
    resume,
    approvals: "interactive",
    concealEnvironment: true,
    ...(role ? { role } : {}),
  });
  const opening = opened.events.flatMap((event) =>
    event.type === "context_fitted" ? [event.line] : event.type === "notice" ? [event.message] : [],
  );
  // What the switch said (a /fork's ids) comes first in the chat it opened.
  if (arrival !== undefined) opening.unshift(arrival);
  return runTui(opened.session, {
    ...(opening.length > 0 ? { resumeLine: opening.join("\n") } : {}),
    onSwitch,
  });
}

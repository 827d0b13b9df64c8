// Whether the chat may colour its output, by the conventions users set once for every tool:
// FORCE_COLOR (0 or false: never; anything else: always) wins, then NO_COLOR (set and not empty:
// never, https://no-color.org), else a terminal that is not `dumb`. Bold, dim and underline are
// not colours and stay.

type Env = Record<string, string | undefined>;

/** Whether colours are on for `stream` under `env`. */
export function coloursOn(
  env: Env = process.env,
  stream: { isTTY?: boolean } = process.stdout,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== "0" && force !== "false";
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && env.TERM !== "dumb";
}

/**
 * Makes every colour library in the process agree (chalk in ink, in the markdown renderer and in
 * its code highlighter, which read FORCE_COLOR when they load): called before any of them loads.
 */
export function applyColourPolicy(env: Env = process.env): void {
  if (env.FORCE_COLOR === undefined && env.NO_COLOR) env.FORCE_COLOR = "0";
}

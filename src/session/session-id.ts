import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/**
 * A session id that sorts by creation time: UTC `YYYYMMDD-HHMMSS-` and four random base-36 characters,
 * e.g. `20261121-210405-k3x9`. UTC, so ids sort the same across time zones and DST changes.
 */
export function newSessionId(
  now: Date = new Date(),
  random: () => Uint8Array = () => randomBytes(4),
): string {
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  const stamp =
    `${p(now.getUTCFullYear(), 4)}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-` +
    `${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  const suffix = Array.from(random().subarray(0, 4), (b) => ALPHABET[b % 36]).join("");
  return `${stamp}-${suffix}`;
}

/** True for a string shaped like a session id (safe to use as a file name). */
export function isSessionId(id: string): boolean {
  return /^\d{8}-\d{6}-[0-9a-z]{4}$/.test(id);
}

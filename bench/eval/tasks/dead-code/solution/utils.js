/** 2026-11-26 from a Date (UTC). */
export function formatDate(date) {
  return date.toISOString().slice(0, 10);
}

/** A Date from 2026-11-26 (UTC). */
export function parseDate(text) {
  return new Date(`${text}T00:00:00Z`);
}

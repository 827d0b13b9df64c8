/** 2026-11-26 from a Date (UTC). */
export function formatDate(date) {
  return date.toISOString().slice(0, 10);
}

/** The old dd/mm/yyyy format; kept for the v1 export, which is gone. */
export function legacyFormat(date) {
  const day = String(date.getUTCDate()).padStart(2, "0");
  const month = String(date.getUTCMonth() + 1).padStart(2, "0");
  return `${day}/${month}/${date.getUTCFullYear()}`;
}

/** A Date from 2026-11-26 (UTC). */
export function parseDate(text) {
  return new Date(`${text}T00:00:00Z`);
}

// Numbers as every part of nex writes them to people and to the model.

/** `1,234`, as toLocaleString("en-US") writes it, without loading the locale data (~20 ms on first use). */
export function formatCount(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en-US");
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** An exact size: `1,234 bytes` / `1 byte`. */
export function formatBytes(n: number): string {
  return `${formatCount(n)} ${n === 1 ? "byte" : "bytes"}`;
}

/** `1 line` / `12 lines` */
export function formatLines(n: number): string {
  return `${formatCount(n)} ${n === 1 ? "line" : "lines"}`;
}

/** A size at a glance: `512 B`, `1.2 KiB`, `3.4 MiB`. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

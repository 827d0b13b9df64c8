// Where streaming markdown may be committed (written once to the scrollback) without breaking a
// block: at a blank line outside code fences, or, inside a long code fence, at a line end (the fence
// is closed for the committed part and opened again, same language, for the rest).

/** The committed part, what stays live, and whether a blank line separates them. */
export interface MarkdownCut {
  done: string;
  rest: string;
  gap: boolean;
}

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** A cut of `text` once it holds more than `maxLines` complete lines, or null while it should stay live. */
export function markdownCut(text: string, maxLines: number, hardLimit = 60): MarkdownCut | null {
  const end = text.lastIndexOf("\n");
  if (end < 0) return null;
  const lines = text.slice(0, end).split("\n");
  if (lines.length <= maxLines) return null;
  let open: { marker: string; line: string } | null = null;
  let lastBlank = -1;
  lines.forEach((line, i) => {
    const fence = FENCE.exec(line);
    if (open) {
      const marker = fence?.[1];
      if (
        marker &&
        marker[0] === open.marker[0] &&
        marker.length >= open.marker.length &&
        !fence?.[2]?.trim()
      )
        open = null;
      return;
    }
    if (fence?.[1]) open = { marker: fence[1], line: line.trim() };
    else if (line.trim() === "") lastBlank = i;
  });
  const after = text.slice(end + 1);
  if (open) {
    const fenceOpen = open as { marker: string; line: string };
    return {
      done: `${lines.join("\n")}\n${fenceOpen.marker}`,
      rest: `${fenceOpen.line}\n${after}`,
      gap: false,
    };
  }
  if (lastBlank > 0) {
    return {
      done: lines.slice(0, lastBlank).join("\n"),
      rest: [...lines.slice(lastBlank + 1), after].join("\n"),
      gap: true,
    };
  }
  if (lines.length > hardLimit) return { done: lines.join("\n"), rest: after, gap: false };
  return null;
}

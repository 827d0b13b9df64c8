/** Prompts submitted earlier, walked with Up and Down; `index` is null while editing a new prompt. */
export interface HistoryState {
  entries: readonly string[];
  index: number | null;
  /** The unsent prompt, kept while walking the history and given back at its end. */
  draft: string;
}

export const emptyHistory: HistoryState = { entries: [], index: null, draft: "" };

/** Records a submitted prompt (not twice in a row) and leaves history walking. */
export function remember(state: HistoryState, text: string, limit = 500): HistoryState {
  if (text.trim() === "") return { ...state, index: null, draft: "" };
  const entries =
    state.entries.at(-1) === text ? state.entries : [...state.entries, text].slice(-limit);
  return { entries, index: null, draft: "" };
}

/** Up: the previous prompt, or null when there is none. */
export function previous(
  state: HistoryState,
  current: string,
): { state: HistoryState; text: string } | null {
  if (state.entries.length === 0) return null;
  if (state.index === 0) return null;
  const index = state.index === null ? state.entries.length - 1 : state.index - 1;
  const draft = state.index === null ? current : state.draft;
  return { state: { ...state, index, draft }, text: state.entries[index] ?? "" };
}

/** Down: the next prompt, the draft after the newest, or null when not walking. */
export function next(state: HistoryState): { state: HistoryState; text: string } | null {
  if (state.index === null) return null;
  const index = state.index + 1;
  if (index >= state.entries.length)
    return { state: { ...state, index: null, draft: "" }, text: state.draft };
  return { state: { ...state, index }, text: state.entries[index] ?? "" };
}

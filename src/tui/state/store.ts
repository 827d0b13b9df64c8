import type { AgentEvent } from "../../protocol/index.ts";
import { reduceUi, type UiState } from "./ui-state.ts";

/** Options of the UI store. */
export interface StoreOptions {
  /** Streaming deltas are coalesced into one render per this many ms. */
  throttleMs?: number;
  now?: () => number;
}

/** Holds the UI state outside React; events are folded at once, renders are throttled. */
export interface UiStore {
  get(): UiState;
  dispatch(event: AgentEvent): void;
  /** A change of the TUI's own (prompt echo, command output); rendered at once. */
  update(change: (state: UiState) => UiState): void;
  subscribe(listener: () => void): () => void;
  dispose(): void;
}

// Deltas arrive many times a second; everything else changes what the user must see now.
function coalesced(event: AgentEvent): boolean {
  return (
    event.type === "text_delta" ||
    event.type === "reasoning_delta" ||
    event.type === "tool_call_delta" ||
    event.type === "usage"
  );
}

export function createStore(initial: UiState, options: StoreOptions = {}): UiStore {
  const throttleMs = options.throttleMs ?? 50;
  const now = options.now ?? Date.now;
  const listeners = new Set<() => void>();
  let state = initial;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const notify = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    for (const listener of listeners) listener();
  };

  return {
    get: () => state,
    dispatch(event) {
      state = reduceUi(state, event, now());
      if (!coalesced(event)) return notify();
      timer ??= setTimeout(notify, throttleMs);
    },
    update(change) {
      state = change(state);
      notify();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    dispose() {
      if (timer) clearTimeout(timer);
      timer = null;
      listeners.clear();
    },
  };
}

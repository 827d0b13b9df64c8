// Which output item each Responses stream event belongs to, and what each item has streamed so far.

type Json = Record<string, unknown>;

/** What one output item has streamed so far. */
export interface ItemState {
  /** Deltas came for it: its `done` event only confirms them. */
  streamed: boolean;
  /** A call's argument text as its deltas brought it. */
  args: string[];
  /** The whole arguments the server sent at the call's end differ from its deltas: an event was lost. */
  differs: boolean;
  /** The summary part or content part reasoning last came from, to part them with a blank line. */
  part: number;
}

/** The items of one response, by index. */
export interface ItemIndex {
  /**
   * The index of an item: `output_index`, else the index its id was first seen at; an item a server
   * announces without either takes the next index, and a delta without either belongs to the last.
   */
  indexOf(data: Json, id?: unknown): number;
  stateOf(index: number): ItemState;
  /** Whether an item id was seen. */
  knows(id: unknown): boolean;
  /** Items whose `output_item.done` arrived. */
  ended: Set<number>;
  /** Each call's index by its call id. */
  indexOfCall: Map<string, number>;
}

export function createItemIndex(): ItemIndex {
  const items = new Map<number, ItemState>();
  const indexOfId = new Map<string, number>();
  let last = -1;
  return {
    ended: new Set<number>(),
    indexOfCall: new Map<string, number>(),
    indexOf: (data, id = data.item_id) => {
      let index: number;
      if (typeof data.output_index === "number") index = data.output_index;
      else if (typeof id === "string" && indexOfId.has(id)) index = indexOfId.get(id) as number;
      else index = data.type === "response.output_item.added" ? last + 1 : Math.max(last, 0);
      if (typeof id === "string" && id !== "" && !indexOfId.has(id)) indexOfId.set(id, index);
      last = Math.max(last, index);
      return index;
    },
    stateOf: (index) => {
      let state = items.get(index);
      if (!state) {
        state = { streamed: false, part: -1, args: [], differs: false };
        items.set(index, state);
      }
      return state;
    },
    knows: (id) => typeof id === "string" && indexOfId.has(id),
  };
}

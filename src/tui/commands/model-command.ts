// `/model` as a command: with no name, the picker of this endpoint's models and the config's other
// endpoints where the chat has one (else the list as a line); with a name, or a row chosen, the switch.
import { describeModelSwitch } from "../../protocol/index.ts";
import type { AgentSession } from "../../runtime/session/index.ts";
import { addEntry, type UiStore } from "../state/index.ts";
import {
  type ModelPickerState,
  type ModelRow,
  openModelPicker,
  otherEndpointLine,
} from "./model-picker.ts";

export interface ModelContext {
  session: AgentSession;
  store: UiStore;
  /** Shows the model picker; absent where the chat has none. */
  openModels?(state: ModelPickerState): void;
}

function say(store: UiStore, text: string, tone: "plain" | "dim" | "warn" | "good"): void {
  store.update((state) => addEntry(state, { type: "info", text, tone }));
}

/** `/model` alone: the picker, or the served models as a line when there is nothing to pick. */
export async function modelListCommand(ctx: ModelContext): Promise<void> {
  const { session, store } = ctx;
  const choices = ctx.openModels ? await session.modelChoices?.() : null;
  const state = choices ? openModelPicker(choices) : null;
  if (state && ctx.openModels) return ctx.openModels(state);
  return say(store, await session.listModels(), "dim");
}

/** `/model NAME`: the switch, said. */
export async function switchModel(ctx: ModelContext, name: string): Promise<void> {
  const { session, store } = ctx;
  const result = await session.setModel(name);
  const model = session.info.model;
  store.update((state) => ({ ...state, meter: { ...state.meter, model } }));
  say(store, describeModelSwitch(result), result.kind === "switched" ? "good" : "warn");
}

/** A row chosen in the picker (null: Esc). */
export async function modelChosen(
  ctx: ModelContext,
  state: ModelPickerState,
  chosen: ModelRow | null,
): Promise<void> {
  if (chosen === null) return say(ctx.store, `Model unchanged: still ${state.current}.`, "dim");
  if (chosen.type === "endpoint")
    return say(ctx.store, otherEndpointLine(chosen.name, state.current), "warn");
  if (chosen.name === state.current) return say(ctx.store, `Already using ${chosen.name}.`, "dim");
  return switchModel(ctx, chosen.name);
}

import assert from "node:assert/strict";
import { test } from "node:test";
import { spinnerOn } from "../../src/tui/state/status.ts";
import { createStore } from "../../src/tui/state/store.ts";
import { initialUi } from "../../src/tui/state/ui-state.ts";

const info = { contextWindow: 32_768, windowSource: "default" as const, model: "m" };

test("streaming deltas are coalesced into one render per interval; other events render at once", async () => {
  const store = createStore(initialUi(info), { throttleMs: 40 });
  let renders = 0;
  store.subscribe(() => renders++);
  store.dispatch({
    type: "request_started",
    requestId: 1,
    attempt: 1,
    host: "h",
    model: "m",
    maxTokens: 1,
  });
  assert.equal(renders, 1, "the spinner shows at once");
  for (let i = 0; i < 200; i++) store.dispatch({ type: "text_delta", text: "x" });
  assert.equal(renders, 1, "no render per delta");
  // The interval's render, however late a loaded machine runs it.
  await new Promise<void>((resolve) => {
    const stop = store.subscribe(() => {
      stop();
      resolve();
    });
  });
  assert.equal(renders, 2, "one render for the whole burst");
  assert.equal(store.get().transcript.streaming, "x".repeat(200));
  store.dispatch({ type: "aborted", reason: "interrupted by the user" });
  assert.equal(renders, 3, "the interrupt shows at once");
  assert.equal(spinnerOn(store.get().status), false);
  store.dispose();
});

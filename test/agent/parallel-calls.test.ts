// Calls that may run side by side still ask their questions one at a time, in the model's order.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as delay, setImmediate as tick } from "node:timers/promises";
import { patienceMs } from "../support/until.ts";
import { recordingTools, runLoopWith, scriptedStream, turn, wholeCall } from "./fakes.ts";

test("calls run side by side ask the user one question at a time, in the order they were made, and run at once", async () => {
  const { stream } = scriptedStream([
    () => [
      {
        type: "done",
        turn: turn({
          toolCalls: [1, 2, 3].map((n) =>
            wholeCall(`c${n}`, "web_fetch", { url: `https://x/${n}` }),
          ),
        }),
      },
    ],
    () => [{ type: "done", turn: turn({ text: "done" }) }],
  ]);
  let running = 0;
  let mostRunning = 0;
  let release: () => void = () => {};
  const allStarted = new Promise<void>((resolve) => {
    release = resolve;
  });
  const base = recordingTools({ permission: () => ({ type: "ask", summary: "fetch" }) });
  const tools = {
    ...base,
    parallel: () => true,
    execute: async () => {
      running++;
      mostRunning = Math.max(mostRunning, running);
      if (running === 3) release();
      // Run one after another, the first would wait here for the others forever: it waits a while,
      // longer than a loaded machine may take to start the others.
      await Promise.race([allStarted, delay(patienceMs, undefined, { ref: false })]);
      running--;
      return { isError: false, content: "page" };
    },
  };
  let asking = 0;
  let mostAsking = 0;
  const order: string[] = [];
  const { terminal } = await runLoopWith("fetch", {
    stream,
    tools,
    approve: async (request) => {
      asking++;
      mostAsking = Math.max(mostAsking, asking);
      order.push(request.callId);
      await tick();
      asking--;
      return { type: "allow_once" };
    },
  });
  assert.equal(terminal?.type, "done");
  assert.deepEqual(order, ["c1", "c2", "c3"]);
  assert.equal(mostAsking, 1);
  assert.equal(mostRunning, 3);
});

// Property tests of stream assembly through the real clients: transport, SSE parsing, the wire
// readers, the assembler and the verdict, fed raw bytes split at random points.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import type { AssembledTurn } from "../../src/protocol/index.ts";
import {
  type Ending,
  endings,
  type GeneratedCall,
  RUNS,
  runClient,
  servingFetch,
  splitAt,
  streamBytes,
  toolCall,
} from "./tool-call-streams.ts";

const wires = ["openai", "anthropic"] as const;
const calls = fc.array(toolCall, { minLength: 1, maxLength: 3 });
const offsets = fc.array(fc.nat(), { maxLength: 16 });

function assertExact(turn: AssembledTurn | null, generated: GeneratedCall[], where: string): void {
  assert.ok(turn, `${where}: the request failed`);
  assert.equal(turn.toolCalls.length, generated.length, where);
  turn.toolCalls.forEach((call, i) => {
    assert.equal(call.verdict.type, "whole", `${where}: call ${i} ${JSON.stringify(call.verdict)}`);
    assert.equal(call.name, generated[i]?.name, where);
    assert.deepEqual(call.verdict.type === "whole" && call.verdict.args, generated[i]?.args, where);
  });
}

for (const wire of wires) {
  test(`${wire}: a complete stream split anywhere yields every call dispatchable with exactly the arguments sent`, async () => {
    await fc.assert(
      fc.asyncProperty(calls, offsets, async (generated, cuts) => {
        const bytes = streamBytes(wire, generated, "complete");
        const { turn } = await runClient(wire, servingFetch(splitAt(bytes, cuts), "close"));
        assertExact(turn, generated, `${wire} split at ${cuts}`);
      }),
      { numRuns: RUNS },
    );
  });

  test(`${wire}: a stream cut at any byte, however it ends, never yields a dispatchable call with altered content`, async () => {
    await fc.assert(
      fc.asyncProperty(
        calls,
        offsets,
        fc.nat(),
        fc.constantFrom<Ending>(...endings),
        fc.constantFrom("close" as const, "destroy" as const),
        async (generated, cuts, cutSeed, ending, end) => {
          const bytes = streamBytes(wire, generated, ending);
          const cut = cutSeed % (bytes.length + 1);
          const sent = bytes.subarray(0, cut);
          const { turn } = await runClient(wire, servingFetch(splitAt(sent, cuts), end));
          const where = `${wire} ${ending} cut at ${cut}/${bytes.length} then ${end}`;
          for (const [i, call] of (turn?.toolCalls ?? []).entries()) {
            if (call.verdict.type !== "whole") continue;
            // Only a complete, terminated message with clean signals may be dispatched, and then exactly.
            assert.equal(ending, "complete", `${where}: call ${i} dispatchable`);
            assert.equal(cut, bytes.length, `${where}: call ${i} dispatchable before the end`);
            assert.deepEqual(call.verdict.args, generated[i]?.args, where);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  test(`${wire}: arguments in 1-character fragments assemble exactly as in one fragment`, async () => {
    await fc.assert(
      fc.asyncProperty(calls, offsets, async (generated, cuts) => {
        const fine = generated.map((c) => ({ ...c, fragment: 1 }));
        const coarse = generated.map((c) => ({ ...c, fragment: 1_000_000 }));
        const [a, b] = await Promise.all(
          [fine, coarse].map((g) =>
            runClient(wire, servingFetch(splitAt(streamBytes(wire, g, "complete"), cuts), "close")),
          ),
        );
        assert.deepEqual(a?.turn?.toolCalls, b?.turn?.toolCalls);
        assertExact(a?.turn ?? null, generated, `${wire} in 1-character fragments`);
      }),
      { numRuns: Math.ceil(RUNS / 2) },
    );
  });
}

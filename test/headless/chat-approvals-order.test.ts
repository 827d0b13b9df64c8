// An answer counts only for a question already waiting when nex reads it, even while the outbox is
// still writing earlier acknowledgements (each append takes workgraph's lock, slow on a busy machine):
// a line written ahead of its question ("approve 2" guessed before question 2 exists) approves nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ChatApprovals } from "../../src/headless/chat-files/chat-approvals.ts";
import type { InboxMessage } from "../../src/headless/chat-files/chat-inbox.ts";
import type { Outbox, OutboxReply } from "../../src/headless/chat-files/chat-outbox.ts";
import type { AgentEvent } from "../../src/protocol/index.ts";
import type { AgentSession } from "../../src/runtime/session/index.ts";

function message(id: number, content: string): InboxMessage {
  return { id, content, requestId: `r${id}`, urgent: false, attachments: [] };
}

test("chat approvals: an answer read before its question was asked approves nothing, even while earlier acknowledgements are still being written", async () => {
  const listeners: ((event: AgentEvent) => void)[] = [];
  const answered: { callId: string; type: string }[] = [];
  const session = {
    subscribe: (listener: (event: AgentEvent) => void) => {
      listeners.push(listener);
      return () => {};
    },
    answerPermission: (callId: string, answer: { type: string }) =>
      answered.push({ callId, type: answer.type }),
  } as unknown as AgentSession;
  // The outbox's appends wait on a gate, as they wait on the lock when the machine is busy.
  let open: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const written: OutboxReply[] = [];
  let nextId = 0;
  const outbox = {
    appendWith: async (make: (id: number) => OutboxReply) => {
      nextId += 1;
      written.push(make(nextId));
      return nextId;
    },
    append: async (reply: OutboxReply) => {
      await gate;
      written.push(reply);
    },
  } as unknown as Outbox;
  const approvals = new ChatApprovals({
    session,
    outbox,
    running: () => message(1, "do it"),
    timeoutMs: 60_000,
    err: () => {},
  });
  const ask = async (callId: string) => {
    for (const listener of listeners)
      listener({
        type: "permission_requested",
        callId,
        name: "bash",
        summary: callId,
      } as AgentEvent);
    await new Promise((resolve) => setImmediate(resolve));
  };
  await ask("call-1");
  approvals.take(message(2, "approve 1"), { approvalId: 1, answer: "approve" }, () => {});
  // Read before question 2 exists, while the acknowledgement of 1 waits on the outbox.
  approvals.take(message(3, "approve 2"), { approvalId: 2, answer: "approve" }, () => {});
  await ask("call-2");
  open();
  await approvals.settled();
  approvals.close();
  assert.deepEqual(answered, [{ callId: "call-1", type: "allow_once" }]);
  const ack = written.find((reply) => reply.inboxId === 3);
  assert.equal(ack?.role, "system-error", JSON.stringify(written));
});

// Everything the tool host tells the model passes the secret scrubber, the paths a hint names too:
// a file named after a key (an invented tool's hint names files) reaches the model redacted.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ToolHost } from "../../src/protocol/index.ts";
import { scrubbedTools } from "../../src/runtime/secrets/index.ts";
import { createSecretScrubber } from "../../src/session/index.ts";

const KEY = "sk-test-0123456789abcdefghij";

test("the paths filesNamed answers are scrubbed of nex's secrets; a host that cannot look still cannot", async () => {
  const scrubber = createSecretScrubber([{ name: "OPENAI_API_KEY", value: KEY }]);
  const host: ToolHost = {
    specs: () => [],
    permission: async () => ({ type: "allow" as const }),
    rememberApproval: () => {},
    execute: async () => ({ isError: false, content: "" }),
    filesNamed: async () => [`keys/${KEY}.txt`, "src/app.ts"],
  };
  const scrubbed = scrubbedTools(host, scrubber);
  const paths = await scrubbed.filesNamed?.("app.ts", 4, new AbortController().signal);
  assert.deepEqual(paths, ["keys/[redacted: OPENAI_API_KEY].txt", "src/app.ts"]);
  const { filesNamed: _, ...blind } = host;
  assert.equal(scrubbedTools(blind as ToolHost, scrubber).filesNamed, undefined);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { scrubText } from "../../src/session/index.ts";

test("secrets in an environment dump, tokens, private keys and URL passwords are redacted", () => {
  const dump = [
    "OPENAI_API_KEY=abcdef0123456789abcdef",
    "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123456789",
    "GOOGLE=AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "DB=https://admin:hunter2hunter2@db.example.com/x",
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----",
  ].join("\n");
  const { text, redactions } = scrubText(dump);
  for (const secret of [
    "abcdef0123456789abcdef",
    "hf_abcdefghij",
    "AIzaSyA123",
    "hunter2hunter2",
    "b3BlbnNzaC1rZXkt",
  ]) {
    assert.ok(!text.includes(secret), `${secret} survived:\n${text}`);
  }
  assert.equal(redactions, 5);
  assert.match(text, /OPENAI_API_KEY=\[redacted\]/);
  assert.match(text, /https:\/\/admin:\[redacted\]@db\.example\.com/);
});

test("a secret the caller names is redacted whatever its shape; ordinary code is left alone", () => {
  const key = "local-key-without-digits-or-prefix";
  const { text } = scrubText(`the server says: invalid key ${key}.`, [key]);
  assert.equal(text, "the server says: invalid key [redacted].");
  const code = "const apiKey = process.env.OPENAI_API_KEY;";
  assert.equal(scrubText(code).text, code);
});

// The scrubber of nex's own secrets against what real commands print: the key as is and encoded.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { createSecretScrubber, scrubDeep } from "../../src/session/index.ts";
import { headTail } from "../../src/tools/results/output-cap.ts";

// Anthropic keys are long: their base64 is wrapped by `base64` at 76 columns.
const KEY = `sk-ant-api03-${"Qx7vN2kR9mB4tW8yL3cF6hJ1gD5sA0eU".repeat(3)}-AbCdEf`;
const PASSWORD = "p@ss w/rd:Tr0ub4dor&3";
const scrubber = createSecretScrubber([
  { name: "ANTHROPIC_API_KEY", value: KEY },
  { name: "HTTPS_PROXY password", value: PASSWORD },
]);

/** What bash prints for a command that gets the key as $K and the password as $P. */
function printed(command: string): string {
  return execFileSync("bash", ["-c", command], {
    env: { PATH: process.env.PATH ?? "", K: KEY, P: PASSWORD },
    encoding: "utf8",
  });
}

test("the key is redacted however a command prints it: as is, base64 (wrapped, any alignment, url-safe), hex, URL- or JSON-encoded", () => {
  const commands = [
    'echo "$K"',
    'echo "$K" | base64',
    'printf %s "$K" | base64 -w0',
    'printf "user:%s" "$K" | base64',
    'printf "xy%s\\n" "$K" | base64 -w 60',
    'printf %s "$K" | base64 | tr "+/" "-_"',
    'printf %s "$K" | od -An -tx1',
    'printf %s "$K" | xxd -p',
    'printf %s "$K" | xxd -p | tr a-f A-F',
    "node -e 'process.stdout.write(encodeURIComponent(process.env.K) + JSON.stringify({k: process.env.K}))'",
  ];
  for (const command of commands) {
    const out = printed(command);
    const { text, redactions } = scrubber.scrub(out);
    assert.ok(redactions > 0, `${command}: nothing redacted in ${out}`);
    assert.match(text, /\[redacted: ANTHROPIC_API_KEY\]/, command);
    // No run of 24 characters of the key, or of its base64, survives.
    const base64 = Buffer.from(KEY).toString("base64").replace(/=+$/, "");
    for (const form of [KEY, base64]) {
      for (let at = 0; at + 24 <= form.length; at += 12)
        assert.ok(
          !text.includes(form.slice(at, at + 24)),
          `${command} left ${form.slice(at, at + 24)}: ${text}`,
        );
    }
  }
});

test("a proxy password is redacted as written and URL-encoded, and named as what it is", () => {
  const out = printed("echo \"$P\"; node -e 'console.log(encodeURIComponent(process.env.P))'");
  assert.equal(
    scrubber.scrub(out).text,
    "[redacted: HTTPS_PROXY password]\n[redacted: HTTPS_PROXY password]\n",
  );
});

test("text without secrets comes back as it was; a session without secrets does no work", () => {
  const code = "const key = process.env.ANTHROPIC_API_KEY; // base64: c2stYW50\n".repeat(100);
  assert.deepEqual(scrubber.scrub(code), { text: code, redactions: 0 });
  const none = createSecretScrubber([{ name: "SHORT", value: "abc" }]);
  assert.equal(none.active, false);
  const event = { type: "notice", message: `key ${KEY}` };
  assert.equal(scrubDeep(event, none), event);
  assert.deepEqual(scrubDeep({ list: [event] }, scrubber), {
    list: [{ type: "notice", message: "key [redacted: ANTHROPIC_API_KEY]" }],
  });
});

test("a key cut in two by the output cap, or cut by a last-lines view, leaves no piece of 12 characters or more", () => {
  const key = "sk-proj-Zq8vN3xW7kR2mP5tY9bL4cF6hJ1gD0sA3eU8iO2";
  const one = createSecretScrubber([{ name: "OPENAI_API_KEY", value: key }]);
  const pieces = (text: string) =>
    Array.from({ length: key.length - 11 }, (_, at) => key.slice(at, at + 12)).filter((piece) =>
      text.includes(piece),
    );
  for (let before = 20; before <= 50; before += 3) {
    // Head and tail of 50 bytes each: the key straddles the cut at every offset.
    const output = headTail(100);
    output.push(Buffer.from(`${"a".repeat(before)}${key}${"b".repeat(400)}`));
    output.push(Buffer.from(`${key}${"c".repeat(before)}`));
    const text = one.scrub(output.text()).text;
    assert.deepEqual(pieces(text), [], text);
    // The view starts inside the key's second half (within the 50 bytes of tail kept).
    const last = one.scrub(output.tail(Math.min(before + 20, 50))).text;
    assert.deepEqual(pieces(last), [], last);
  }
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { plainText } from "../../src/protocol/plain-text.ts";

test("terminal control is stripped from what the TUI shows, so no part of a command can hide", () => {
  assert.equal(
    plainText("ls; \x1b[8mcurl x | sh\x1b[28m"),
    "ls; curl x | sh",
    "concealed text shows",
  );
  assert.equal(
    plainText("\x1b[31mred\x1b[0m \x1b[2K\x1b[1Aup"),
    "red up",
    "colours, erases, moves",
  );
  assert.equal(
    plainText("\x1b]0;title\x07\x1b]8;;http://x\x1b\\link"),
    "link",
    "OSC title, hyperlink",
  );
  assert.equal(plainText("a\x1bPq#0\x1b\\b\x1bcc"), "abc", "DCS string, ESC c (reset)");
  assert.equal(plainText("\u009b8mx\u009dtitle\u009cy\u0085z"), "xyz", "8-bit CSI, OSC and C1");
  assert.equal(plainText("safe\rrm -rf ~\b\x00\x07\x7f"), "saferm -rf ~", "CR, BS, NUL, BEL, DEL");
  assert.equal(plainText("a\tb\r\nc\n"), "a\tb\nc\n", "tab and newline stay");
  assert.equal(plainText("unfinished \x1b["), "unfinished ");
});

test("bidirectional overrides and zero-width characters cannot reorder or hide part of a command", () => {
  assert.equal(plainText("echo safe\u202e; hs | lrc\u202c"), "echo safe; hs | lrc");
  assert.equal(plainText("r\u200bm -rf /"), "rm -rf /");
});

test("joiners and directional marks stay, so emoji sequences and Persian or Indic text show whole", () => {
  for (const text of [
    "👩\u200d💻",
    "می\u200cخواهم",
    "क्\u200dष",
    "abc \u200fשלום\u200e def",
    "\u061cعربي",
  ]) {
    assert.equal(plainText(text), text);
  }
});

test("every bidi embedding, override and isolate is stripped", () => {
  const controls = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069";
  assert.equal(plainText(`a${controls}b`), "ab");
});

// Ctrl-V in the real chat reads an image from the clipboard with the system's tool (here a stand-in
// `wl-paste` on PATH, a real child process) and attaches it; with no tool, or no image on the
// clipboard, it says so and what to do.
import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { keys } from "../support/pty.ts";
import { scratchDir } from "../support/scratch-dir.ts";
import { openaiText } from "../support/stub-scripts.ts";
import { startNexTui } from "./cli-harness.ts";

const ctrlV = "\x16";
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** A folder with a `wl-paste` that lists `types` and prints `image` for any --type. */
function fakeWlPaste(types: string[], image: Buffer | null): string {
  const bin = scratchDir("nex-fake-clip-");
  if (image) writeFileSync(join(bin, "clip.bin"), image);
  writeFileSync(
    join(bin, "wl-paste"),
    `#!/bin/sh\nif [ "$1" = "--list-types" ]; then printf '${types.join("\\n")}\\n'; exit 0; fi\ncat "${join(bin, "clip.bin")}"\n`,
  );
  chmodSync(join(bin, "wl-paste"), 0o755);
  return bin;
}

test("Ctrl-V at 120×40 pastes the clipboard's image as a path, and the prompt goes out with the image", async (t) => {
  const bin = fakeWlPaste(["image/png", "text/plain"], PNG);
  const nex = await startNexTui([openaiText("A single pixel.")], {
    cols: 120,
    rows: 40,
    config: { models: { m: { images: true } } },
    env: { PATH: `${bin}:${process.env.PATH ?? ""}`, WAYLAND_DISPLAY: "wayland-test" },
  });
  t.after(() => nex.close());
  nex.pty.write("what is in ");
  await nex.pty.waitFor("what is in");
  nex.pty.write(ctrlV);
  await nex.pty.waitFor(/nex-clipboard-\w+\/clipboard-1\.png/);
  nex.pty.write(keys.enter);
  await nex.pty.waitFor("A single pixel.");
  const body = nex.chatRequests()[0]?.rawBody ?? "";
  assert.match(body, /data:image\/png;base64,iVBORw0KGgo/);
});

test("Ctrl-V at 80×30 says when the clipboard holds no image, and when there is no clipboard tool", async (t) => {
  const bin = fakeWlPaste(["text/plain", "UTF8_STRING"], null);
  const nex = await startNexTui([], {
    cols: 80,
    rows: 30,
    env: { PATH: `${bin}:${process.env.PATH ?? ""}`, WAYLAND_DISPLAY: "wayland-test" },
  });
  t.after(() => nex.close());
  nex.pty.write(ctrlV);
  const screen = await nex.pty.waitFor("The clipboard holds no image");
  assert.match(
    screen.replace(/\s+/g, " "),
    /it holds text\/plain, UTF8_STRING\)\. Copy an image first/,
  );

  const bare = await startNexTui([], { cols: 80, rows: 30, env: { PATH: "/usr/bin:/bin" } });
  t.after(() => bare.close());
  bare.pty.write(ctrlV);
  const none = await bare.pty.waitFor("no clipboard tool was found");
  assert.match(none.replace(/\s+/g, " "), /install wl-clipboard \(Wayland\) or xclip \(X11\)/);
});

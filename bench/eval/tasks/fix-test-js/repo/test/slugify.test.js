import assert from "node:assert/strict";
import { test } from "node:test";
import { slugify } from "../src/slugify.js";

test("joins words with a dash", () => {
  assert.equal(slugify("Hello World"), "hello-world");
});

test("collapses runs of spaces and punctuation into one dash", () => {
  assert.equal(slugify("Hello,   big  World!"), "hello-big-world");
});

test("no dash at either end", () => {
  assert.equal(slugify("  --Nex rocks--  "), "nex-rocks");
});

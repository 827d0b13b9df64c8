import assert from "node:assert/strict";
import { test } from "node:test";
import { findPlaceholders, isPlaceholderLine } from "../../src/tools/files/placeholders.ts";

const lazy = [
  "// ... rest of the code unchanged",
  "  // ... existing code ...",
  "# ... existing code ...",
  "<!-- ... rest of the file ... -->",
  "// rest of the file unchanged",
  "/* ... other methods ... */",
  "{/* ... existing code ... */}",
  "# ... rest unchanged",
  "// Keep existing code",
  "// existing code here",
  "// ... (unchanged)",
  "// The rest of the code goes here",
  "// rest of implementation",
  "    // ... remaining methods unchanged",
  "-- ... rest of the query unchanged",
  "// … previous code …",
  "// Other methods remain the same",
  "# ... rest of the function ...",
];

const legitimate = [
  "// ...",
  "const f = (...args) => g(...args);",
  "    ...",
  "...state,",
  "/* ... */",
  "// Reading existing file...",
  "# TODO: handle other cases...",
  "// The rest of the file handles errors",
  "// Existing imports",
  "// Spread the rest of the args...",
  "print('... rest of code unchanged')",
  "// See the other function for details.",
  "# Keep the existing behaviour for old clients",
  "// Wait for the rest...",
  "// This keeps the original order",
  "## Other tools",
];

test("common lazy-model omission placeholders are recognised", () => {
  for (const line of lazy) assert.equal(isPlaceholderLine(line), true, line);
});

test("legitimate code and ordinary comments are not mistaken for placeholders", () => {
  for (const line of legitimate) assert.equal(isPlaceholderLine(line), false, line);
});

test("a placeholder already present in the old text is not reported again", () => {
  const old = "a\n// ... existing code ...\nb\n";
  assert.deepEqual(findPlaceholders("a2\n// ... existing code ...\nb\n", old), []);
  assert.deepEqual(findPlaceholders("a2\n# ... rest unchanged\n", old), ["# ... rest unchanged"]);
});

// Preloaded with --import: appends every module URL of the MCP SDK that the process loads to
// $SDK_LOADS_FILE, so a test can tell whether nex loaded the SDK at all.
import { appendFileSync } from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.SDK_LOADS_FILE;
registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    if (file && result.url.includes("@modelcontextprotocol/sdk"))
      appendFileSync(file, `${result.url}\n`);
    return result;
  },
});

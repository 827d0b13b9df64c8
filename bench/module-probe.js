// Preloaded into nex by `npm run bench -- --compare` (NODE_OPTIONS="--import <this file>"): at exit it
// writes to NEX_BENCH_MODULES_FILE how many modules the process loaded, nex's own (under the `src/` or
// `dist/` beside bin/nex.js) and its dependencies'. Plain JavaScript, like usage-probe.js.
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const file = process.env.NEX_BENCH_MODULES_FILE;
if (file && registerHooks) {
  const loaded = new Set();
  registerHooks({
    load(url, context, next) {
      loaded.add(url);
      return next(url, context);
    },
  });
  process.on("exit", () => {
    const urls = [...loaded].filter((url) => url.startsWith("file:"));
    const own = urls.filter((url) => /\/(src|dist)\//.test(url) && !url.includes("/node_modules/"));
    const dependencies = urls.filter((url) => url.includes("/node_modules/"));
    writeFileSync(
      file,
      `${JSON.stringify({ own: own.length, dependencies: dependencies.length })}\n`,
    );
  });
}

// `npm run build` (run by `npm pack`): the installed package is one esbuild bundle of `src/` and every
// dependency in `dist/`, split at the lazy `import()`s so each mode loads only what it uses. The
// package then installs nothing from the registry: no nested copies, no engine warnings from
// dependencies, a few MB instead of hundreds.
//   dist/cli/main.js      the entry bin/nex.js imports
//   dist/chunks/*.js      code shared between entries or loaded on demand
//   dist/ranks/*.cjs      the tokenizer tables, read synchronously on first count (src/session/tokens.ts)
//   dist/THIRD-PARTY-LICENSES.md  the notices of everything bundled
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { build, type Plugin } from "esbuild";

const root = resolve(import.meta.dirname, "..");
const dist = join(root, "dist");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  engines: { node: string };
};
const floor = pkg.engines.node.replace(/^>=\s*/, "");

rmSync(dist, { recursive: true, force: true });

/** The folder of the package a resolved file is in, with its name and version. */
function packageOf(file: string): { dir: string; id: string } | null {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(file);
  if (!match?.[1]) return null;
  const meta = JSON.parse(readFileSync(join(match[1], "package.json"), "utf8")) as {
    name: string;
    version: string;
  };
  return { dir: match[1], id: `${meta.name}@${meta.version}` };
}

// npm nests a package under each dependent when the top level holds another version of it; the same
// name and version nested in several places is one module in the bundle, not one per place.
const dedupe: Plugin = {
  name: "dedupe-nested-packages",
  setup(builder) {
    const first = new Map<string, string>();
    builder.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "dedupe" || args.path.startsWith("node:")) return undefined;
      const resolved = await builder.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: "dedupe",
      });
      // Left to esbuild: what does not resolve (optional peers required in a try) or is external.
      if (resolved.errors.length > 0 || resolved.external || !resolved.path) return undefined;
      const owner = packageOf(resolved.path);
      if (!owner) return resolved;
      const kept = first.get(owner.id);
      if (kept === undefined) {
        first.set(owner.id, owner.dir);
        return resolved;
      }
      return { ...resolved, path: join(kept, relative(owner.dir, resolved.path)) };
    });
  },
};

// ink connects to React's devtools when DEV=true, through a module that needs react-devtools-core:
// the package ships neither, so that module is empty (DEV=true then connects to nothing).
const noDevtools: Plugin = {
  name: "no-ink-devtools",
  setup(builder) {
    builder.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /node_modules\/ink\//.test(args.importer)
        ? { path: "ink-devtools", namespace: "empty" }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "", loader: "js" }));
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: { "cli/main": "src/cli/main.ts" },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: `node${floor}`,
  chunkNames: "chunks/[name]-[hash]",
  minifySyntax: true,
  minifyWhitespace: true,
  keepNames: false,
  sourcemap: false,
  legalComments: "none",
  metafile: true,
  logLevel: "warning",
  // React and ink read NODE_ENV: the installed package is the production build.
  define: { "process.env.NODE_ENV": '"production"' },
  plugins: [dedupe, noDevtools],
  // Bundled CommonJS modules call require() for Node.js built-ins; an ES module has no require.
  banner: {
    js: 'import { createRequire as __nexCreateRequire } from "node:module"; const require = __nexCreateRequire(import.meta.url);',
  },
});

if (process.env.NEX_BUILD_META)
  writeFileSync(process.env.NEX_BUILD_META, JSON.stringify(result.metafile));

// The tokenizer tables nex counts with (src/session/tokens.ts names them).
const require = createRequire(join(root, "package.json"));
mkdirSync(join(dist, "ranks"));
for (const name of ["cl100k_base", "o200k_base"]) {
  copyFileSync(require.resolve(`js-tiktoken/ranks/${name}`), join(dist, "ranks", `${name}.cjs`));
}

// Every package the bundle holds code of, with its license text.
const packages = new Map<string, string>();
const copied = Object.keys(result.metafile.inputs).concat(
  "node_modules/js-tiktoken/dist/ranks/cl100k_base.cjs",
);
for (const input of copied) {
  const match = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (match?.[1]) packages.set(match[1], match[1]);
}
const notices: string[] = [
  "# Third-party software in this package",
  "",
  "nex's `dist/` bundles the following packages. Their licenses follow.",
  "",
];
for (const dir of [...packages.keys()].sort()) {
  const meta = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as {
    name: string;
    version: string;
    license?: string;
  };
  const licenseFile = ["LICENSE", "LICENSE.md", "LICENSE.txt", "license", "LICENCE", "license.md"]
    .map((name) => join(root, dir, name))
    .find((path) => existsSync(path));
  notices.push(`## ${meta.name} ${meta.version} (${meta.license ?? "see text"})`, "");
  notices.push(
    licenseFile ? readFileSync(licenseFile, "utf8").trim() : "(no license file shipped)",
  );
  notices.push("");
}
writeFileSync(join(dist, "THIRD-PARTY-LICENSES.md"), `${notices.join("\n")}\n`);

let bytes = 0;
for (const [file, output] of Object.entries(result.metafile.outputs)) {
  bytes += output.bytes;
  if (!existsSync(join(root, file)))
    throw new Error(`esbuild reported ${file} but did not write it`);
}
process.stdout.write(
  `dist/: ${Object.keys(result.metafile.outputs).length} modules, ${(bytes / 2 ** 20).toFixed(1)} MiB, ${packages.size} bundled packages (target node${floor}); ${relative(root, dirname(join(dist, "cli", "main.js")))}/main.js is the entry\n`,
);

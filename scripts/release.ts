// `npm run release`: tag → pack → test the tarball on the floor and the newest Node.js → publish.
//   npm run release              checks and packs the tagged commit, tests the tarball, says how to publish it
//   npm run release -- --publish the same, then publishes that very tarball (npm asks for the 2FA code)
// Before it: the version in package.json is bumped, CHANGELOG.md has a `## <version>` section, the
// tree is clean and committed, and the commit is tagged `v<version>` (`git tag -s v0.2.0`).
// What is published is the tarball that was tested, never a second pack.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { npm } from "./exact-node.ts";

const root = resolve(import.meta.dirname, "..");
const { values } = parseArgs({ options: { publish: { type: "boolean", default: false } } });
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  private?: boolean;
};

function stop(message: string): never {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

const git = (...args: string[]) =>
  execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

if (pkg.private) stop("package.json says private: true; a private package is never published.");
if (git("status", "--porcelain") !== "")
  stop("the working tree has changes: commit them (the release is what the tag names).");
const tag = `v${pkg.version}`;
const tagged = spawnSync("git", ["rev-parse", "--verify", "--quiet", `${tag}^{commit}`], {
  cwd: root,
  encoding: "utf8",
});
if (tagged.status !== 0)
  stop(`no tag ${tag}: tag the release commit first (git tag -s ${tag} -m "nex ${pkg.version}").`);
if (tagged.stdout.trim() !== git("rev-parse", "HEAD"))
  stop(`${tag} is not HEAD: check out ${tag} (or move the tag) and run again.`);
const changelog = readFileSync(join(root, "CHANGELOG.md"), "utf8");
if (!new RegExp(`^## ${pkg.version.replace(/\./g, "\\.")}\\b`, "m").test(changelog))
  stop(`CHANGELOG.md has no "## ${pkg.version}" section: say what this release changes.`);

const out = join(root, "release");
rmSync(out, { recursive: true, force: true });
mkdirSync(out);
const run = (command: string, args: string[]) => {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.status !== 0) stop(`${command} ${args.join(" ")} failed (exit ${result.status}).`);
};
run(npm, ["pack", "--pack-destination", out]);
const tarball = readdirSync(out).find((file) => file.endsWith(".tgz"));
if (!tarball) stop("npm pack wrote no tarball.");
const path = join(out, tarball);
// The floor (engines), the newest Node.js, and the release just below the floor, refused.
run(process.execPath, [
  join(root, "scripts", "check-package.ts"),
  "--tarball",
  path,
  "--refuse",
  "22.11.0",
]);

const publish = [npm, "publish", path, "--access", "public", "--tag", "latest"];
if (values.publish) {
  run(publish[0] as string, publish.slice(1));
  process.stdout.write(
    `Published ${pkg.name}@${pkg.version}. Push the tag: git push origin ${tag}\n`,
  );
} else {
  process.stdout.write(
    `\n${tarball} is tested. To publish exactly it:\n  ${publish.join(" ")}\n  git push origin ${tag}\n`,
  );
}

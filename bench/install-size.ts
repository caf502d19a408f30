// Install size of each package alone: every @yoke package published to the local registry of
// the registry round trip (Verdaccio on 127.0.0.1 over bootstrap's warmed storage, no uplink),
// then `npm install <package>` alone in a fresh project, as an adopter would (npm adds the
// required peers: zod, and @ai-sdk/provider for the AI SDK bridge; optional peers such as
// better-sqlite3 or the SDKs are not installed). Prints JSON rows: the packed tarball's bytes,
// node_modules' bytes and package count, and the largest packages in it.
// usage: node install-size.ts
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { manifestOf } from "../tests/registry-round-trip/src/readmes.ts";
import { npmEnvironment, publishWorkspace, run, startOfflineRegistry } from "../tests/registry-round-trip/src/registry.ts";

/** Bytes of the files under `dir` (apparent sizes; links not followed). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += bytesUnder(path);
    else total += lstatSync(path).size;
  }
  return total;
}

/** The installed packages of a flat npm node_modules, with their sizes. */
function installedPackages(modules: string): { name: string; bytes: number }[] {
  return readdirSync(modules, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .flatMap((entry) => (entry.name.startsWith("@") ? readdirSync(join(modules, entry.name)).map((name) => `${entry.name}/${name}`) : [entry.name]))
    .map((name) => ({ name, bytes: bytesUnder(join(modules, name)) }));
}

const work = mkdtempSync(join(tmpdir(), "yoke-bench-install-"));
const registry = await startOfflineRegistry(work, 10 * 60_000);
try {
  const tarballs = await publishWorkspace(registry, work);
  const rows = [];
  for (const [dir, tarball] of [...tarballs].sort(([a], [b]) => a.localeCompare(b))) {
    const name = manifestOf(dir).name;
    const project = join(work, "adopters", dir);
    mkdirSync(project, { recursive: true });
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "adopter", version: "1.0.0", private: true }));
    const installed = await run("npm", ["install", name], { cwd: project, env: npmEnvironment(project, registry.url, join(work, "npm-cache")) });
    if (installed.status !== 0) throw new Error(`npm install ${name} failed:\n${installed.stdout}${installed.stderr}`);
    const packages = installedPackages(join(project, "node_modules")).sort((a, b) => b.bytes - a.bytes);
    rows.push({
      name,
      tarballBytes: statSync(tarball).size,
      ownBytes: packages.find((p) => p.name === name)?.bytes ?? 0,
      nodeModulesBytes: bytesUnder(join(project, "node_modules")),
      packages: packages.length,
      largest: packages.filter((p) => p.name !== name).slice(0, 3),
    });
  }
  console.log(JSON.stringify(rows));
} finally {
  await registry.stop();
  rmSync(work, { recursive: true, force: true });
}

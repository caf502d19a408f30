// Bootstrap's step for the registry round trip: fills Verdaccio's storage in .toolchain/registry
// with every third-party tarball the README installs resolve, by running those installs once
// through Verdaccio proxying the public npm registry. The round-trip test then runs Verdaccio on
// a copy of that storage with no uplink at all, so it talks to 127.0.0.1 only. Runs again only
// when Verdaccio's lockfile, a README install line or a package's dependencies change.
//   node tests/registry-round-trip/src/warm-cache.ts
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { packageDirs, readGuide, repoRoot, thirdPartySpecs, workspaceCatalog } from "./readmes.ts";
import { npmEnvironment, run, startRegistry, warmStorage } from "./registry.ts";

/** What the warm storage must hold: for each README, the third-party specs its install resolves. */
export function warmPlan(): Record<string, string[]> {
  const catalog = workspaceCatalog();
  return Object.fromEntries(packageDirs().map((dir) => [dir, thirdPartySpecs(readGuide(dir).install, catalog)]));
}

/** The key of a warm storage: Verdaccio's lockfile and the plan. */
export function warmKey(): string {
  const lock = readFileSync(join(repoRoot, ".toolchain/registry/package-lock.json"), "utf8");
  return createHash("sha256").update(lock).update(JSON.stringify(warmPlan())).digest("hex");
}

export const warmStamp = join(repoRoot, ".toolchain/registry/warm-stamp");

async function main(): Promise<void> {
  const key = warmKey();
  if (existsSync(warmStamp) && readFileSync(warmStamp, "utf8").trim() === key) return;
  process.stderr.write("bootstrap: warming the local registry's storage for the registry round trip\n");
  rmSync(warmStamp, { force: true });
  const registry = await startRegistry({ storage: warmStorage, uplink: "https://registry.npmjs.org/", deadlineMs: 15 * 60_000 });
  const work = mkdtempSync(join(tmpdir(), "yoke-registry-warm-"));
  try {
    for (const [dir, specs] of Object.entries(warmPlan())) {
      if (specs.length === 0) continue;
      // One project per round: a name wanted at two ranges (the README's `zod`, a package's
      // `zod@^4.1.0`) is installed in a project of its own for each.
      const rounds: string[][] = [];
      for (const spec of specs) {
        const name = spec.replace(/(.)@.*$/, "$1");
        const round = rounds.find((r) => !r.some((s) => s.replace(/(.)@.*$/, "$1") === name));
        if (round) round.push(spec);
        else rounds.push([spec]);
      }
      for (const [index, round] of rounds.entries()) {
        const project = join(work, `${dir}-${index}`);
        const env = npmEnvironment(project, registry.url, join(work, "npm-cache"));
        writeFileSync(join(project, "package.json"), JSON.stringify({ name: `warm-${dir}`, private: true }));
        const result = await run("npm", ["install", ...round], { cwd: project, env, timeoutMs: 10 * 60_000 });
        if (result.status !== 0) throw new Error(`warming for packages/${dir}: npm install ${round.join(" ")} failed:\n${result.stdout}${result.stderr}`);
      }
    }
    writeFileSync(warmStamp, `${key}\n`);
  } finally {
    await registry.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}

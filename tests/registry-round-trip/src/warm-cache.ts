// Bootstrap's step for the registry round trip: fills Verdaccio's storage in .toolchain/registry
// with every third-party tarball the README installs resolve, by running those installs once
// through Verdaccio proxying the public npm registry. The round-trip test then runs Verdaccio on
// a copy of that storage with no uplink at all, so it talks to 127.0.0.1 only. Runs again only
// when Verdaccio's lockfile, a README install line or a package's dependencies change.
//   node tests/registry-round-trip/src/warm-cache.ts
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { npmEnvironment, run, startRegistry, warmStorage } from "./registry.ts";
import { warmKey, warmPlan, warmStamp } from "./warm-key.ts";

async function main(): Promise<void> {
  const key = warmKey();
  if (existsSync(warmStamp) && readFileSync(warmStamp, "utf8").trim() === key) return;
  process.stderr.write("bootstrap: warming the local registry's storage for the registry round trip\n");
  rmSync(warmStamp, { force: true });
  const registry = await startRegistry({ storage: warmStorage, uplink: "https://registry.npmjs.org/", deadlineMs: 15 * 60_000 });
  const work = mkdtempSync(join(tmpdir(), "yoke-registry-warm-"));
  try {
    // One project per README and round, all at once (the time is the network's). A name wanted
    // at two ranges (the README's `zod`, a package's `zod@^4.1.0`) gets a round for each.
    const installs: { project: string; specs: string[] }[] = [];
    for (const [dir, specs] of Object.entries(warmPlan())) {
      const rounds: string[][] = [];
      for (const spec of specs) {
        const name = spec.replace(/(.)@.*$/, "$1");
        const round = rounds.find((r) => !r.some((s) => s.replace(/(.)@.*$/, "$1") === name));
        if (round) round.push(spec);
        else rounds.push([spec]);
      }
      for (const [index, round] of rounds.entries()) installs.push({ project: join(work, `${dir}-${index}`), specs: round });
    }
    const install = ({ project, specs }: { project: string; specs: string[] }) => {
      const env = npmEnvironment(project, registry.url, join(work, "npm-cache"));
      writeFileSync(join(project, "package.json"), JSON.stringify({ name: "warm", private: true }));
      return run("npm", ["install", ...specs], { cwd: project, env, timeoutMs: 10 * 60_000 }).then((result) => ({ project, specs, ...result }));
    };
    const results = await Promise.all(installs.map(install));
    // A network hiccup on the way to the public registry gets one more try, alone.
    for (const failed of results.filter((result) => result.status !== 0)) {
      const again = await install(failed);
      if (again.status !== 0) throw new Error(`warming: npm install ${again.specs.join(" ")} failed twice:\n${again.stdout}${again.stderr}`);
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

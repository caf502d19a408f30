// The proof that "install one package alone" works: every @yoke package is packed (pnpm pack:
// workspace: and catalog: become real versions) and published to Verdaccio on 127.0.0.1; then,
// for each package README, a fresh npm project outside the workspace installs exactly what the
// README's install line names from that registry and runs the README's first snippet with this
// Node. Verdaccio runs on a copy of the storage bootstrap warmed with the third-party tarballs,
// with no uplink, and npm's https requests go to a dead proxy: every byte comes from 127.0.0.1
// or this disk.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import { guideLabel, manifestOf, packageDirs, readGuides, unmetExpectations } from "./readmes.ts";
import { npmEnvironment, publishWorkspace, type Registry, run, startOfflineRegistry } from "./registry.ts";

const work = mkdtempSync(join(tmpdir(), "yoke-registry-"));
const npmCache = join(work, "npm-cache");
let registry: Registry | undefined;
const started = Date.now();
const phases: string[] = [];
/** Each published package's tarball, by package directory. */
let published = new Map<string, string>();
/** The guides (`runtime`, `runtime#zod3`, …) whose README round trip ran to its last check. */
const finished = new Set<string>();
const phase = (name: string, since: number): void => void phases.push(`${name} ${((Date.now() - since) / 1000).toFixed(1)} s`);

// Installs run side by side, a few at a time (npm mostly waits on the disk and the registry).
let slots = 3;
const waiting: (() => void)[] = [];
async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  while (slots === 0) await new Promise<void>((resolve) => waiting.push(resolve));
  slots -= 1;
  try {
    return await work();
  } finally {
    slots += 1;
    waiting.shift()?.();
  }
}

const dirs = packageDirs();
const guides = dirs.flatMap(readGuides);
// The Node that runs the snippets: this one, or another to check `engines` (e.g. a Node 22.14
// installed by hand: YOKE_ROUND_TRIP_NODE=/path/to/node). Before 22.18 Node strips types only
// behind a flag.
const node = process.env.YOKE_ROUND_TRIP_NODE ?? process.execPath;
const nodeVersion = execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8" }).trim();
const [major = 0, minor = 0] = nodeVersion.split(".").map(Number);
const nodeFlags = major < 22 || (major === 22 && minor < 18) ? ["--experimental-strip-types", "--no-warnings"] : [];

beforeAll(async () => {
  let since = Date.now();
  registry = await startOfflineRegistry(work, 5 * 60_000);
  phase("registry up", since);
  since = Date.now();
  published = await publishWorkspace(registry, work);
  phase(`${published.size} packed and published`, since);
}, 120_000);

afterAll(async () => {
  await registry?.stop();
  await rm(work, { recursive: true, force: true });
}, 120_000);

describe("registry round trip", () => {
  it.concurrent.for(guides.map((guide) => [guideLabel(guide), guide] as const))(
    "@yoke/%s: a fresh project installs what the README's install line names and runs its first snippet",
    { timeout: 180_000 },
    ([label, guide], { expect }) =>
      withSlot(async () => {
        const since = Date.now();
        const { dir } = guide;
        const where = `packages/${dir}/README.md${guide.variant === undefined ? "" : ` (round-trip: ${guide.variant})`}`;
        const project = join(work, "adopters", label.replace("#", "-"));
        mkdirSync(project, { recursive: true });
        writeFileSync(join(project, "package.json"), JSON.stringify({ name: `adopter-${dir}`, version: "1.0.0", private: true, type: "module" }));
        const env = npmEnvironment(project, registry!.url, npmCache);

        const install = await run("npm", ["install", ...guide.install], { cwd: project, env });
        if (install.status !== 0) {
          expect.fail(
            `${where}: \`npm install ${guide.install.join(" ")}\` from the local registry failed` +
              ` (a missing third-party tarball means bootstrap's warm storage is stale: bash scripts/bootstrap.sh):\n${install.stdout}${install.stderr}`,
          );
        }

        writeFileSync(join(project, "readme-snippet.ts"), guide.snippet);
        const snippet = await run(node, [...nodeFlags, "readme-snippet.ts"], { cwd: project, env, timeoutMs: 60_000 });
        const failure = `${where}, first snippet, run by Node ${nodeVersion} in a project that installed only \`${guide.install.join(" ")}\``;
        expect(snippet.status, `${failure}: exit status\n--- stdout\n${snippet.stdout}--- stderr\n${snippet.stderr}`).toBe(0);
        expect(snippet.stderr, `${failure}: wrote to stderr`).toBe("");
        expect(
          unmetExpectations(guide.expectations, snippet.stdout),
          `${failure}: did not print what the README says it prints (in order)\n--- stdout\n${snippet.stdout}`,
        ).toEqual([]);
        phase(label, since);
        finished.add(label);
      }),
  );
});

describe("registry round trip, in all", () => {
  it("the registry serves every public package at the workspace's version, and every README ran to its last check", async ({ task, expect }) => {
    const publicDirs = dirs.filter((dir) => (manifestOf(dir) as { private?: boolean }).private !== true);
    expect([...published.keys()].sort()).toEqual(publicDirs);
    for (const dir of publicDirs) {
      const { name, version } = manifestOf(dir);
      const answer = await fetch(`${registry!.url}${name.replace("/", "%2f")}`);
      expect(answer.status, `${name} on ${registry!.url}`).toBe(200);
      const document = (await answer.json()) as { versions?: Record<string, unknown> };
      expect(Object.keys(document.versions ?? {}), name).toContain(version);
    }
    expect([...finished].sort()).toEqual(guides.map(guideLabel).sort());
    // The wall-clock time is reported, never asserted (it depends on this machine's load).
    (task.meta as { summary?: string }).summary = `${((Date.now() - started) / 1000).toFixed(1)} s in all: ${phases.join(", ")}`;
  });
});

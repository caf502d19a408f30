// What each published package.json promises an adopter: it lists exactly what its shipped code
// imports, with ranges rather than pins, zod as a peer, every package on one version line, and
// an `engines` the READMEs state.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dependencyProblems, escapingImports, importedPackages, layeringProblems } from "./package-imports.ts";
import { manifestOf, packageDirs, repoRoot } from "./readmes.ts";

const dirs = packageDirs();
const names = dirs.map((dir) => manifestOf(dir).name);
const full = (dir: string) => manifestOf(dir) as ReturnType<typeof manifestOf> & { engines?: { node?: string }; devDependencies?: Record<string, string> };

describe("published package.json files", () => {
  it.each(dirs)("@yoke/%s lists every package its shipped code imports, and nothing it does not", (dir) => {
    expect(dependencyProblems(dir), `packages/${dir}/package.json`).toEqual([]);
  });

  it.each(dirs)("@yoke/%s lists only the @yoke packages DESIGN.md's layering lets it depend on", (dir) => {
    expect(layeringProblems(full(dir)), `packages/${dir}/package.json`).toEqual([]);
  });

  it.each(dirs)("@yoke/%s's relative imports stay inside the package", (dir) => {
    expect(escapingImports(dir)).toEqual([]);
  });

  it.each(dirs)("@yoke/%s depends on ranges, not pinned versions", (dir) => {
    const { dependencies = {}, peerDependencies = {} } = manifestOf(dir);
    const pinned = Object.entries({ ...dependencies, ...peerDependencies }).filter(
      ([name, spec]) => !(name.startsWith("@yoke/") ? spec === "workspace:^" : /^(\^|~|>=)\d/.test(spec)),
    );
    expect(pinned, `packages/${dir}/package.json: a published dependency must be a range (^, ~ or >=; workspace:^ for @yoke)`).toEqual([]);
  });

  it.each(dirs)("@yoke/%s takes zod as a peer dependency, with the range @yoke/protocol takes it at", (dir) => {
    const manifest = full(dir);
    expect(manifest.dependencies?.zod, `packages/${dir}: zod must not be a dependency`).toBeUndefined();
    expect(manifest.peerDependencies?.zod).toBe(manifestOf("protocol").peerDependencies?.zod);
    expect(manifest.peerDependenciesMeta?.zod?.optional ?? false).toBe(false);
  });

  it("drivers and SDKs are optional peers of the one package that needs each", () => {
    // The CLI opens the store a user names (SQLite by default), so it takes the driver as an optional peer too.
    const owners: Record<string, string[]> = {
      "better-sqlite3": ["journal", "cli"],
      pg: ["journal"],
      openai: ["provider-openai"],
      "@anthropic-ai/sdk": ["provider-anthropic"],
      "@modelcontextprotocol/sdk": ["mcp"],
    };
    for (const [peer, owner] of Object.entries(owners)) {
      for (const dir of dirs) {
        const manifest = full(dir);
        const listed = manifest.dependencies?.[peer] ?? manifest.peerDependencies?.[peer];
        if (!owner.includes(dir)) expect(listed, `packages/${dir} lists ${peer}`).toBeUndefined();
        else if (listed !== undefined) expect(manifest.peerDependenciesMeta?.[peer]?.optional, `packages/${dir}: ${peer} optional`).toBe(true);
      }
    }
    expect(full("journal").peerDependencies?.["better-sqlite3"]).toBeDefined();
    expect(full("provider-openai").peerDependencies?.openai).toBeDefined();
    expect(full("provider-anthropic").peerDependencies?.["@anthropic-ai/sdk"]).toBeDefined();
    expect(full("mcp").peerDependencies?.["@modelcontextprotocol/sdk"]).toBeDefined();
  });

  it("every package is on the same version line, and changesets keeps them there", () => {
    expect(new Set(dirs.map((dir) => manifestOf(dir).version)).size).toBe(1);
    const config = JSON.parse(readFileSync(join(repoRoot, ".changeset/config.json"), "utf8")) as { fixed: string[][] };
    expect(config.fixed.map((group) => [...group].sort())).toEqual([[...names].sort()]);
  });

  it("engines.node is the same everywhere, and the READMEs state it", () => {
    const engines = new Set(dirs.map((dir) => full(dir).engines?.node));
    expect([...engines]).toEqual([">=22.14"]);
    const stated = "Node ≥ 22.14";
    expect(readFileSync(join(repoRoot, "README.md"), "utf8")).toContain(stated);
    for (const dir of dirs) expect(readFileSync(join(repoRoot, "packages", dir, "README.md"), "utf8"), `packages/${dir}/README.md`).toContain(stated);
  });
});

describe("the layering check of package.json", () => {
  it("names a layer that depends on another layer, protocol on any @yoke package, and the runtime shipping testkit", () => {
    expect(layeringProblems({ name: "@yoke/scheduler", dependencies: { "@yoke/protocol": "workspace:^", "@yoke/journal": "workspace:^" } })).toEqual([
      "@yoke/scheduler lists @yoke/journal in dependencies or peerDependencies: a layer depends on @yoke/protocol alone; only the runtime composes layers",
    ]);
    expect(layeringProblems({ name: "@yoke/scheduler", devDependencies: { "@yoke/testkit": "workspace:^", "@yoke/journal": "workspace:^" } })).toHaveLength(1);
    expect(layeringProblems({ name: "@yoke/provider-openai", peerDependencies: { "@yoke/context-compiler": "workspace:^" } })).toHaveLength(1);
    expect(layeringProblems({ name: "@yoke/protocol", devDependencies: { "@yoke/testkit": "workspace:^" } })).toHaveLength(1);
    expect(layeringProblems({ name: "@yoke/testkit", devDependencies: { "@yoke/testkit": "workspace:^" } })).toHaveLength(1);
    expect(layeringProblems({ name: "@yoke/runtime", dependencies: { "@yoke/testkit": "workspace:^" } })).toHaveLength(1);
    expect(
      layeringProblems({
        name: "@yoke/runtime",
        dependencies: { "@yoke/journal": "workspace:^", "@yoke/scheduler": "workspace:^" },
        devDependencies: { "@yoke/testkit": "workspace:^" },
      }),
    ).toEqual([]);
    expect(
      layeringProblems({ name: "@yoke/journal", dependencies: { "@yoke/protocol": "workspace:^" }, devDependencies: { "@yoke/testkit": "workspace:^" } }),
    ).toEqual([]);
  });
});

describe("the import scan", () => {
  it("sees static, dynamic, re-export and require imports, and names the package of a subpath", () => {
    const source = [
      'import { a } from "zod";',
      'import type { B } from "@scope/pkg/sub";',
      'export { c } from "kysely/migration";',
      'const d = await import("better-sqlite3");',
      'const e = require("pino");',
      'import "side-effect";',
      'import { f } from "./local.js";',
      'import { g } from "node:fs";',
    ].join("\n");
    expect([...importedPackages(source)].sort()).toEqual(["@scope/pkg", "better-sqlite3", "kysely", "pino", "side-effect", "zod"]);
  });
});

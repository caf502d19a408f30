// Every package takes zod as a peer at `^3.25.0 || ^4.0.0`, and that holds only while shipped
// code imports `zod/v4` (which zod 3.25+ and zod 4 both ship) and never bare `zod`, which on an
// app pinned to zod 3 is zod 3's own API. Tests, fixtures and examples may import either.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const testFile = /\.test(-d)?\.ts$|__fixtures__|test-support\.ts$/;

function shippedSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "__fixtures__" ? [] : shippedSources(path);
    return /\.(ts|mts)$/.test(entry.name) && !testFile.test(path) ? [path] : [];
  });
}

/** Each `zod` specifier a source imports, re-exports or loads, other than `zod/v4` and below. */
function bareZodImports(source: string): string[] {
  return [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)["'](zod(?:\/[^"']*)?)["']/g)]
    .map((match) => match[1]!)
    .filter((specifier) => specifier !== "zod/v4" && !specifier.startsWith("zod/v4/"));
}

describe("shipped code imports zod/v4, never bare zod", () => {
  it("finds bare imports in every form, and passes zod/v4", () => {
    expect(bareZodImports(`import { z } from "zod";\nexport { z } from 'zod';\nconst m = await import("zod");\nimport "zod/v3";`)).toEqual([
      "zod",
      "zod",
      "zod",
      "zod/v3",
    ]);
    expect(bareZodImports(`import { z } from "zod/v4";\nimport type { core } from "zod/v4/core";`)).toEqual([]);
  });

  it("no package's src/ outside tests imports bare zod", () => {
    const packages = join(repoRoot, "packages");
    const offenders = readdirSync(packages).flatMap((name) =>
      shippedSources(join(packages, name, "src")).flatMap((path) =>
        bareZodImports(readFileSync(path, "utf8")).map((specifier) => `${relative(repoRoot, path)}: "${specifier}"`),
      ),
    );
    expect(offenders).toEqual([]);
  });
});

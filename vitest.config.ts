import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

// One project per package, example and cross-package test suite (tests/*), all sharing the
// setup below. A package's own `pnpm test` runs `vitest run --root ../.. --project <name>`.
const dirs = ["packages", "examples", "tests"].flatMap((group) =>
  existsSync(join(import.meta.dirname, group)) ? readdirSync(join(import.meta.dirname, group)).map((name) => join(group, name)) : [],
);

export default defineConfig({
  test: {
    projects: dirs.map((dir) => ({
      extends: true,
      test: {
        name: dir.split("/")[1]!,
        root: dir,
        include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      },
    })),
    setupFiles: [join(import.meta.dirname, "scripts/vitest-setup.ts")],
    globalSetup: [join(import.meta.dirname, "scripts/vitest-fc-seed.ts")],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    passWithNoTests: false,
  },
});

// The vitest config Stryker runs (see scripts/mutate.ts): one project, the package being
// mutated (YOKE_MUTATE_PACKAGE), with the shared setup of the root config.
import { join } from "node:path";
import { defineConfig } from "vitest/config";

const root = join(import.meta.dirname, "..");
const name = process.env.YOKE_MUTATE_PACKAGE ?? "protocol";

export default defineConfig({
  test: {
    projects: [
      {
        extends: true,
        test: { name, root: join(root, "packages", name), include: ["src/**/*.test.ts", "test/**/*.test.ts"] },
      },
    ],
    setupFiles: [join(root, "scripts/vitest-setup.ts")],
    globalSetup: [join(root, "scripts/vitest-fc-seed.ts")],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

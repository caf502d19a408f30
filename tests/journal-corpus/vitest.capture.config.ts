// The capture run: the runtime's own test suite with capture/capture-setup.ts, which writes the
// journals its tests create to YOKE_CORPUS_CAPTURE_DIR (see capture/select-stable.ts).
import { join } from "node:path";
import { defineConfig } from "vitest/config";

const root = join(import.meta.dirname, "..", "..");

export default defineConfig({
  test: {
    name: "runtime-capture",
    root: join(root, "packages", "runtime"),
    include: ["src/**/*.test.ts"],
    setupFiles: [join(root, "scripts/vitest-setup.ts"), join(import.meta.dirname, "capture", "capture-setup.ts")],
    globalSetup: [join(root, "scripts/vitest-fc-seed.ts")],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});

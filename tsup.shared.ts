import { defineConfig, type Options } from "tsup";

/**
 * The build every @yoke package shares: ESM + CJS with `.d.ts`/`.d.cts` and source maps,
 * for Node 22+. `shims` gives the CJS build `import.meta.url`. A package's tsup.config.ts
 * names only its entry points.
 */
export function packageBuild(entry: string[] = ["src/index.ts"], overrides: Options = {}) {
  return defineConfig({
    entry,
    format: ["esm", "cjs"],
    dts: true,
    sourcemap: true,
    clean: true,
    shims: true,
    target: "node22",
    ...overrides,
  });
}

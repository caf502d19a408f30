import { defineConfig } from "tsup";
import { packageBuild } from "../../tsup.shared.ts";

// `clean` is off in both builds (they run at once): `pnpm build` empties dist/ first.
export default [
  packageBuild(["src/index.ts", "src/contracts.ts", "src/arbitraries.ts", "src/replay.ts", "src/crash.ts", "src/security.ts", "src/sim.ts"], { clean: false }),
  // The ES module entries of ./contracts and ./arbitraries: a peer-dependency check, then a
  // dynamic import of the entry built above (top-level await, so ESM only; vitest itself
  // cannot be loaded from CommonJS).
  defineConfig({
    entry: ["src/contracts-entry.ts", "src/arbitraries-entry.ts"],
    format: ["esm"],
    dts: false,
    sourcemap: true,
    clean: false,
    target: "node22",
  }),
];

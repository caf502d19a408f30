import { packageBuild } from "../../tsup.shared.ts";

// The library builds ESM + CJS; the `yoke` binary is ESM only (top-level await), next to it in dist/.
export default [packageBuild(["src/index.ts"], { clean: false }), packageBuild(["src/bin.ts"], { format: ["esm"], dts: false, clean: false })];

import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  // import.meta.url (for createRequire) in the CJS build too.
  shims: true,
  target: "node22",
});

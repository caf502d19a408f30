import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/contracts.ts", "src/arbitraries.ts", "src/replay.ts"],
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node22",
});

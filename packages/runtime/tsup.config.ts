import { readFileSync } from "node:fs";
import { packageBuild } from "../../tsup.shared.ts";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string };

// RUNTIME_VERSION (src/version.ts) is package.json's version, written in at build time.
export default packageBuild(["src/index.ts", "src/loop-entry.ts"], { define: { __YOKE_RUNTIME_VERSION__: JSON.stringify(version) } });

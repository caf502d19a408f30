import { createRequire } from "node:module";

declare const __YOKE_RUNTIME_VERSION__: string | undefined;

/**
 * This package's version, recorded in `run.started` by default. The build writes it in from
 * package.json (tsup.config.ts); run from source (tests), it is read from package.json.
 */
export const RUNTIME_VERSION: string =
  typeof __YOKE_RUNTIME_VERSION__ === "string" ? __YOKE_RUNTIME_VERSION__ : (createRequire(import.meta.url)("../package.json") as { version: string }).version;

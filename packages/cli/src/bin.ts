#!/usr/bin/env node
import { enableCompileCache } from "node:module";
import { main } from "./main.js";

// Node ≥ 22.1 caches compiled code between runs (under the OS temp dir): a later `yoke` starts faster.
enableCompileCache?.();

process.exitCode = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
});

// Runs Verdaccio in this process, tied to the process that started it: it exits when its
// stdin closes (the test runner, or bootstrap's warmer, died or is done with it), when it is
// re-parented (its parent is gone) or when its deadline passes, so a killed test runner never
// leaves a registry behind.
//   node verdaccio-process.ts <verdaccio bin> <config.yaml> <host:port> <deadline ms>
import { createRequire } from "node:module";

const [bin, config, listen, deadline] = process.argv.slice(2);
if (!bin || !config || !listen || !deadline) {
  process.stderr.write("usage: verdaccio-process.ts <verdaccio bin> <config.yaml> <host:port> <deadline ms>\n");
  process.exit(64);
}

function die(why: string): never {
  process.stderr.write(`verdaccio ${process.pid} exiting: ${why}\n`);
  process.exit(70);
}

const parent = process.ppid;
setTimeout(() => die(`deadline of ${deadline} ms passed`), Number(deadline)).unref();
setInterval(() => {
  if (process.ppid !== parent) die("its parent process is gone");
}, 200).unref();
process.stdin.on("data", () => undefined);
process.stdin.on("end", () => die("stdin closed: the process that started it is gone"));
process.on("SIGTERM", () => process.exit(0));

process.argv = [process.argv[0]!, bin, "--config", config, "--listen", listen];
createRequire(import.meta.url)(bin);

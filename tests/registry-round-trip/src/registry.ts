// A local npm registry (Verdaccio) on 127.0.0.1, and npm pointed at it and at nothing else.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { packageDirs, repoRoot } from "./readmes.ts";
import { warmKey, warmStamp } from "./warm-key.ts";

/** Verdaccio as bootstrap installs it (.toolchain/registry, from its own lockfile). */
export const verdaccioBin = join(repoRoot, ".toolchain/registry/node_modules/verdaccio/bin/verdaccio");
/** The storage bootstrap warms with the third-party tarballs the README installs need. */
export const warmStorage = join(repoRoot, ".toolchain/registry/storage");

export interface Registry {
  readonly url: string;
  readonly process: ChildProcess;
  /** Ends the registry and waits for its process to exit. */
  stop(): Promise<void>;
}

export interface RegistryOptions {
  /** Where Verdaccio keeps packages; its config and log go next to it. */
  readonly storage: string;
  /** Proxy unknown packages to the public npm registry (bootstrap's warmer only; never a test). */
  readonly uplink?: string;
  /** The registry exits on its own after this long. */
  readonly deadlineMs: number;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

function config(storage: string, uplink: string | undefined): string {
  const proxy = uplink ? "\n    proxy: npmjs" : "";
  return [
    `storage: ${JSON.stringify(storage)}`,
    `auth:\n  htpasswd:\n    file: ${JSON.stringify(join(storage, "..", "htpasswd"))}\n    max_users: -1`,
    uplink ? `uplinks:\n  npmjs:\n    url: ${uplink}\n    timeout: 60s` : "uplinks: {}",
    // @yoke packages are only ever the ones published here; everything else comes from the
    // storage (warmed by bootstrap), or in the warmer from the uplink.
    `packages:\n  "@yoke/*":\n    access: $all\n    publish: $all\n  "**":\n    access: $all\n    publish: $all${proxy}`,
    "web:\n  enable: false",
    "max_body_size: 200mb",
    "log: { type: stdout, format: pretty, level: warn }",
    "",
  ].join("\n");
}

/** Starts Verdaccio on 127.0.0.1 and resolves once it answers its ping. */
export async function startRegistry(options: RegistryOptions): Promise<Registry> {
  if (!existsSync(verdaccioBin)) throw new Error(`Verdaccio is not installed at ${verdaccioBin}: run bash scripts/bootstrap.sh`);
  mkdirSync(options.storage, { recursive: true });
  const configPath = join(options.storage, "..", "verdaccio.yaml");
  writeFileSync(configPath, config(options.storage, options.uplink));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const launcher = fileURLToPath(new URL("./verdaccio-process.ts", import.meta.url));
  const child = spawn(process.execPath, [launcher, verdaccioBin, configPath, `127.0.0.1:${port}`, String(options.deadlineMs)], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "" },
  });
  let log = "";
  child.stdout.on("data", (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const exited = once(child, "exit");
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
    await exited;
    clearTimeout(timer);
  };
  const started = Date.now();
  while (Date.now() - started < 30_000) {
    if (child.exitCode !== null) throw new Error(`Verdaccio exited with ${child.exitCode} before answering:\n${log}`);
    const ok = await fetch(`${url}-/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { url, process: child, stop };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  throw new Error(`Verdaccio did not answer on ${url} within 30 s:\n${log}`);
}

/**
 * The environment for npm in `dir`: a user config of its own that points at `registry` and
 * sends any https request (the public registry, an audit, an update check) to a dead proxy on
 * 127.0.0.1, so nothing leaves the machine; no install scripts (better-sqlite3 ships its
 * prebuilt addon inside its tarball; nothing needs building).
 */
export function npmEnvironment(dir: string, registry: string, cache: string): NodeJS.ProcessEnv {
  mkdirSync(dir, { recursive: true });
  const host = registry.replace(/^http:/, "");
  const userconfig = join(dir, ".npmrc-adopter");
  writeFileSync(
    userconfig,
    [
      `registry=${registry}`,
      `${host}:_authToken=anonymous`,
      `cache=${cache}`,
      "https-proxy=http://127.0.0.1:9/",
      "noproxy=127.0.0.1",
      "fetch-retries=1",
      "fetch-retry-mintimeout=200",
      "fetch-retry-maxtimeout=1000",
      "update-notifier=false",
      "audit=false",
      "fund=false",
      "ignore-scripts=true",
      "package-lock=false",
      "loglevel=error",
      "",
    ].join("\n"),
  );
  const globalconfig = join(dir, ".npmrc-global");
  writeFileSync(globalconfig, "");
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_/i.test(key) && key !== "NODE_OPTIONS") env[key] = value;
  return {
    ...env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    npm_config_userconfig: userconfig,
    npm_config_globalconfig: globalconfig,
    NO_COLOR: "1",
  };
}

/** Runs `command` with `args` in `cwd` to its end; resolves with its status and output (never rejects). */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${options.timeoutMs} ms)`;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 120_000);
    child.on("error", (error) => (stderr += String(error)));
    child.on("close", (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/**
 * Verdaccio on a copy (under `work`) of the storage bootstrap warmed, with no uplink: it serves
 * the warmed third-party packages and whatever is published to it, nothing else.
 */
export async function startOfflineRegistry(work: string, deadlineMs: number): Promise<Registry> {
  if (!existsSync(warmStamp) || readFileSync(warmStamp, "utf8").trim() !== warmKey()) {
    throw new Error("the local registry's storage is not warmed for the current README install lines and dependencies: run bash scripts/bootstrap.sh");
  }
  cpSync(warmStorage, join(work, "storage"), { recursive: true });
  return startRegistry({ storage: join(work, "storage"), deadlineMs });
}

/**
 * Packs every publishable package (pnpm pack: `workspace:` and `catalog:` become the versions
 * they stand for) into `work`/tarballs and publishes each to `registry`. Packages must be built.
 * Returns the tarballs' paths by package folder.
 */
export async function publishWorkspace(registry: Registry, work: string): Promise<Map<string, string>> {
  const dirs = packageDirs().filter(
    (dir) => !(JSON.parse(readFileSync(join(repoRoot, "packages", dir, "package.json"), "utf8")) as { private?: boolean }).private,
  );
  const toolPath = `${join(repoRoot, ".toolchain/node_modules/.bin")}:${process.env.PATH ?? ""}`;
  const tarballs = new Map<string, string>();
  await Promise.all(
    dirs.map(async (dir) => {
      const destination = join(work, "tarballs", dir);
      const packed = await run("pnpm", ["pack", "--pack-destination", destination], {
        cwd: join(repoRoot, "packages", dir),
        env: { ...process.env, PATH: toolPath },
      });
      if (packed.status !== 0) throw new Error(`pnpm pack of packages/${dir} failed:\n${packed.stdout}${packed.stderr}`);
      tarballs.set(dir, join(destination, readdirSync(destination)[0]!));
    }),
  );
  const env = npmEnvironment(join(work, "publisher"), registry.url, join(work, "npm-cache"));
  await Promise.all(
    [...tarballs.values()].map(async (tarball) => {
      const published = await run("npm", ["publish", tarball, "--tag", "latest"], { cwd: join(work, "publisher"), env });
      if (published.status !== 0) throw new Error(`npm publish ${tarball} to ${registry.url} failed:\n${published.stdout}${published.stderr}`);
    }),
  );
  return tarballs;
}

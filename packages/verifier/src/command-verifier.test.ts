import { mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { steppingClock, YokeError } from "@yoke/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { abortedSignal, inputOf } from "./__fixtures__/inputs.js";
import { commandVerifier, type VerifierTimers } from "./command-verifier.js";

const node = process.execPath;
const workspace = realpathSync(mkdtempSync(join(tmpdir(), "yoke-verifier-")));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

const script = (id: string, code: string, extra: Partial<Parameters<typeof commandVerifier>[0]> = {}) =>
  commandVerifier({ id, command: node, args: ["-e", code], timeoutMs: 60_000, ...extra });

async function rejection(promise: Promise<unknown>): Promise<YokeError> {
  try {
    await promise;
  } catch (error) {
    if (YokeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a rejection");
}

describe("commandVerifier: exit codes", () => {
  it("passes on exit 0 with the exit code, no signal and the output tail in details", async () => {
    const verdict = await script("ok", "process.stdout.write('all 12 tests pass')").verify(inputOf({ workspace }));
    expect(verdict).toMatchObject({ verifierId: "ok", kind: "command", passed: true });
    expect(verdict.details).toMatchObject({
      exitCode: 0,
      signal: null,
      stdoutTail: "all 12 tests pass",
      stderrTail: "",
      truncatedBytes: { stdout: 0, stderr: 0 },
    });
  });

  it("fails on exit 1, retry true, the reason naming the code and the stderr tail", async () => {
    const verdict = await script("tests", "process.stderr.write('1 test failed: adds'); process.exit(1)").verify(inputOf({ workspace }));
    expect(verdict).toMatchObject({ passed: false, retry: true });
    expect(verdict.reason).toContain("exited with code 1");
    expect(verdict.reason).toContain("1 test failed: adds");
    expect(verdict.details).toMatchObject({ exitCode: 1, signal: null, stderrTail: "1 test failed: adds" });
  });

  it("passOn lists the exit codes that pass", async () => {
    const lint = script("lint", "process.exit(3)", { passOn: [0, 3] });
    expect((await lint.verify(inputOf({ workspace }))).passed).toBe(true);
    expect((await script("lint", "process.exit(3)").verify(inputOf({ workspace }))).passed).toBe(false);
  });

  it("a command that kills itself with a signal fails with exitCode null and the signal", async () => {
    const verdict = await script("crash", "process.kill(process.pid, 'SIGTERM')").verify(inputOf({ workspace }));
    expect(verdict).toMatchObject({ passed: false, details: { exitCode: null, signal: "SIGTERM" } });
    expect(verdict.reason).toContain("killed by SIGTERM");
  });

  it("runs in input.workspace by default, in options.cwd when given, with env on top of this process's", async () => {
    const other = realpathSync(mkdtempSync(join(tmpdir(), "yoke-verifier-cwd-")));
    try {
      const print = "process.stdout.write(process.cwd() + '|' + process.env.YOKE_MARK + '|' + (process.env.PATH !== undefined))";
      const inWorkspace = await script("cwd", print, { env: { YOKE_MARK: "m1" } }).verify(inputOf({ workspace }));
      expect(inWorkspace.details).toMatchObject({ stdoutTail: `${workspace}|m1|true`, cwd: workspace });
      const inCwd = await script("cwd", print, { cwd: other }).verify(inputOf({ workspace }));
      expect(inCwd.details).toMatchObject({ stdoutTail: `${other}|undefined|true` });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("passes arguments as they are, without a shell", async () => {
    const verdict = await commandVerifier({
      id: "argv",
      command: node,
      args: ["-e", "process.stdout.write(JSON.stringify(process.argv.slice(1)))", "$HOME", "a b;c"],
      timeoutMs: 60_000,
    }).verify(inputOf({ workspace }));
    expect(JSON.parse((verdict.details as { stdoutTail: string }).stdoutTail)).toEqual(["$HOME", "a b;c"]);
  });

  it("durationMs is measured with input.clock", async () => {
    const input = { ...inputOf({ workspace }), clock: steppingClock(5_000, 7) };
    const verdict = await script("timed", "").verify(input);
    expect((verdict.details as { durationMs: number }).durationMs).toBe(7);
  });
});

describe("commandVerifier: bounded output", () => {
  it("keeps the last tailBytes of 20 MB of stdout and counts the rest as truncated", async () => {
    const code = "const b = Buffer.alloc(1 << 20, 'a'); for (let i = 0; i < 20; i++) process.stdout.write(b); process.stdout.write('0123456789THE END')";
    const verdict = await script("huge", code, { tailBytes: 16 }).verify(inputOf({ workspace }));
    expect(verdict.details).toMatchObject({ stdoutTail: "23456789THE END".padStart(16, "1"), truncatedBytes: { stdout: 20 * (1 << 20) + 17 - 16, stderr: 0 } });
  });

  it("cuts multi-byte output on a code point boundary, never inside one", async () => {
    // "x" + 10 × "é" (2 bytes each) = 21 bytes; the last 5 start inside an "é".
    const accents = await script("accents", "process.stdout.write('x' + 'é'.repeat(10))", { tailBytes: 5 }).verify(inputOf({ workspace }));
    expect(accents.details).toMatchObject({ stdoutTail: "éé", truncatedBytes: { stdout: 17 } });
    // 3 × a 4-byte emoji = 12 bytes; the last 6 are 2 bytes of one and a whole one.
    const emoji = await script("emoji", "process.stderr.write('😀'.repeat(3)); process.exit(1)", { tailBytes: 6 }).verify(inputOf({ workspace }));
    expect(emoji.details).toMatchObject({ stderrTail: "😀", truncatedBytes: { stderr: 8 } });
    expect(emoji.reason).not.toContain("\uFFFD");
  });

  it("tailBytes 0 keeps no output and counts it all", async () => {
    const verdict = await script("quiet", "process.stdout.write('abc')", { tailBytes: 0 }).verify(inputOf({ workspace }));
    expect(verdict.details).toMatchObject({ stdoutTail: "", truncatedBytes: { stdout: 3 } });
  });
});

describe("commandVerifier: a command that cannot answer is VERIFIER_FAILED", () => {
  it("a program that does not exist: VERIFIER_FAILED, reason spawn, ENOENT", async () => {
    const error = await rejection(commandVerifier({ id: "missing", command: "yoke-no-such-program-xyz", timeoutMs: 10_000 }).verify(inputOf({ workspace })));
    expect(error.code).toBe("VERIFIER_FAILED");
    expect(error.details).toMatchObject({ verifierId: "missing", reason: "spawn", errorCode: "ENOENT" });
  });

  it("a cwd that does not exist: VERIFIER_FAILED, reason spawn", async () => {
    const error = await rejection(script("gone", "", { cwd: join(workspace, "no-such-dir") }).verify(inputOf({ workspace })));
    expect(error).toMatchObject({ code: "VERIFIER_FAILED", details: { reason: "spawn" } });
  });

  it("no cwd and no workspace: VERIFIER_FAILED before anything runs", async () => {
    const error = await rejection(script("nowhere", "").verify(inputOf()));
    expect(error).toMatchObject({ code: "VERIFIER_FAILED", details: { reason: "spawn" } });
    expect(error.message).toContain("no workspace");
  });

  it("a hang past a real (short) timeout is killed: VERIFIER_FAILED, reason timeout, signal SIGKILL", async () => {
    const error = await rejection(
      script("hang", "process.stdout.write('started'); setInterval(() => {}, 1e6)", { timeoutMs: 300 }).verify(inputOf({ workspace })),
    );
    expect(error).toMatchObject({ code: "VERIFIER_FAILED", details: { reason: "timeout", timeoutMs: 300, exitCode: null, signal: "SIGKILL" } });
  });

  it("rejects bad options with CONFIG_INVALID", () => {
    for (const bad of [{ timeoutMs: 0 }, { timeoutMs: 1.5 }, { tailBytes: -1 }, { passOn: [] }, { command: "" }]) {
      expect(() => commandVerifier({ id: "bad", command: node, timeoutMs: 1_000, ...bad })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
  });
});

// A command that starts a grandchild; each connects to this server and says who it is, so the
// test sees both start, and sees each die when its socket closes (no polling, no sleeps).
describe("commandVerifier: timeout and abort kill the whole process tree", () => {
  let server: Server;
  let port = 0;
  let arrivals: ((who: string, socket: Socket) => void)[] = [];
  const pids = new Map<string, number>();
  beforeAll(async () => {
    server = createServer((socket) => {
      socket.setEncoding("utf8");
      socket.once("data", (said: string) => {
        const [who = "", pid] = said.trim().split(" ");
        if (pid !== undefined) pids.set(who, Number(pid));
        for (const arrival of arrivals) arrival(who, socket);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  // The daemon test's grandchild is out of the command's reach by design: the test ends it (also when the test fails).
  const daemons: number[] = [];
  afterEach(() => {
    arrivals = [];
    for (const pid of daemons.splice(0)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  });

  const tree = () => {
    const connect = (who: string) => `const s = require('node:net').connect(${port}, '127.0.0.1', () => s.write('${who}\\n')); setInterval(() => {}, 1e6);`;
    const grandchild = connect("grandchild");
    // The grandchild's stdio is this command's stdout: it would hold the pipe open if it outlived the command.
    return `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(grandchild)}], { stdio: ['ignore', 'inherit', 'inherit'] }); ${connect("child")}`;
  };
  /** Resolves when both processes connected; `closed` when both sockets closed (the processes died). */
  const watchTree = () => {
    const sockets = new Map<string, Socket>();
    let onBoth: () => void = () => {};
    const both = new Promise<void>((resolve) => (onBoth = resolve));
    arrivals.push((who, socket) => {
      sockets.set(who, socket);
      if (sockets.has("child") && sockets.has("grandchild")) onBoth();
    });
    const closed = () =>
      Promise.all([...sockets.values()].map((socket) => (socket.closed ? Promise.resolve() : new Promise((resolve) => socket.once("close", resolve)))));
    return { both, closed, sockets };
  };

  it("the timeout kills the command and its grandchild (timer injected, fired once both run)", async () => {
    const watch = watchTree();
    let fire: () => void = () => {};
    const timers: VerifierTimers = {
      setTimeout: (callback) => {
        fire = callback;
        return 1;
      },
      clearTimeout: () => {},
    };
    const running = script("tree", tree(), { timers, timeoutMs: 5_000 }).verify(inputOf({ workspace }));
    await watch.both;
    fire();
    const error = await rejection(running);
    expect(error).toMatchObject({ code: "VERIFIER_FAILED", details: { reason: "timeout", signal: "SIGKILL" } });
    await watch.closed();
    expect([...watch.sockets.keys()].sort()).toEqual(["child", "grandchild"]);
  });

  it("a command that exits but leaves a daemon (its own session) holding its stdout: the timeout still settles it", async () => {
    const watch = watchTree();
    let fire: () => void = () => {};
    const timers: VerifierTimers = {
      setTimeout: (callback) => {
        fire = callback;
        return 1;
      },
      clearTimeout: () => {},
    };
    const daemon = `const s = require('node:net').connect(${port}, '127.0.0.1', () => s.write('grandchild ' + process.pid + '\\n')); setInterval(() => {}, 1e6);`;
    // The child connects, starts the daemon (detached: a new session, out of the child's group) with the child's stdout, and exits.
    const code = `const s = require('node:net').connect(${port}, '127.0.0.1', () => { s.write('child ' + process.pid + '\\n'); require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(daemon)}], { detached: true, stdio: ['ignore', 'inherit', 'inherit'] }).unref(); s.end(); });`;
    const childClosed = new Promise<void>((resolve) => arrivals.push((who, socket) => (who === "child" ? socket.once("close", () => resolve()) : undefined)));
    const running = script("daemon", code, { timers, timeoutMs: 5_000 }).verify(inputOf({ workspace }));
    await watch.both;
    await childClosed;
    daemons.push(pids.get("grandchild")!);
    // The socket closing is not the exit: fire the timeout only once the child is reaped, which is
    // when Node records its exit code (a zombie still answers signal 0). Yields, never sleeps.
    const childPid = pids.get("child")!;
    while (isAlive(childPid)) await new Promise((resolve) => setImmediate(resolve));
    fire();
    const error = await rejection(running);
    expect(error).toMatchObject({ code: "VERIFIER_FAILED", details: { reason: "timeout", exitCode: 0 } });
  });

  it("an abort kills the command and its grandchild and rejects with CANCELLED", async () => {
    const watch = watchTree();
    const controller = new AbortController();
    const running = script("tree", tree()).verify(inputOf({ workspace, signal: controller.signal }));
    await watch.both;
    controller.abort(new Error("operator cancelled"));
    const error = await rejection(running);
    expect(error).toMatchObject({ code: "CANCELLED", details: { verifierId: "tree", signal: "SIGKILL" } });
    await watch.closed();
  });

  it("an already aborted signal: CANCELLED, and the command never starts", async () => {
    const marker = join(workspace, "started-marker");
    const error = await rejection(
      script("never", `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`).verify(inputOf({ workspace, signal: abortedSignal() })),
    );
    expect(error.code).toBe("CANCELLED");
    expect(readdirSync(workspace)).not.toContain("started-marker");
  });
});

describe("commandVerifier: data", () => {
  it("is not replay-safe unless declared, reserves its timeout as wall time", () => {
    const verifier = script("v", "", { timeoutMs: 9_000 });
    expect(verifier).toMatchObject({ specificationVersion: "v1", id: "v", kind: "command", replaySafe: false, reserve: { wall_time: 9_000 } });
    expect(script("v", "", { replaySafe: true, reserve: { wall_time: 1, tool_ops: 1 } })).toMatchObject({
      replaySafe: true,
      reserve: { wall_time: 1, tool_ops: 1 },
    });
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

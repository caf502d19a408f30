import { randomUUID } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import { hostname } from "node:os";
import type { RunLease } from "@yoke/protocol";

/**
 * What names one process on one machine across PID namespaces and restarts: the kernel's boot
 * id (one per boot of the machine, shared by its containers), the inode of the PID namespace
 * the pid is counted in, the pid, and the process's start time (field 22 of `/proc/<pid>/stat`,
 * clock ticks since boot), which tells a process from a later one that got the same pid.
 */
export interface ProcessIdentity {
  readonly bootId: string;
  readonly pidNamespace: string;
  readonly pid: number;
  readonly startTime: string;
}

/**
 * The host's process table as owner checks read it. `self` is undefined where the host offers
 * no such identity (no `/proc`, or a `/proc` of another PID namespace than this process's);
 * `startTimeOf` answers null when no process has that pid in this namespace, undefined when it
 * cannot tell. Injectable so the rules can be tested without a second namespace.
 */
export interface ProcessTable {
  self(): ProcessIdentity | undefined;
  startTimeOf(pid: number): string | null | undefined;
}

const PREFIX = "yoke";

/**
 * `yoke:<host>:<pid>:<random>:<boot id>:<pid namespace>:<start time>`: unique per process; the
 * last three fields let a later process on this machine tell for certain whether it died.
 * Where the host offers no identity (not Linux), `yoke:<host>:<pid>:<random>`, an owner that
 * is always waited out.
 */
export function processOwnerId(table: ProcessTable = linuxProcessTable()): string {
  const self = table.self();
  const base = `${PREFIX}:${hostname()}:${self?.pid ?? process.pid}:${randomUUID().slice(0, 8)}`;
  return self === undefined ? base : `${base}:${self.bootId}:${self.pidNamespace}:${self.startTime}`;
}

/**
 * True only when the lease's owner is certainly dead: an owner named by `processOwnerId` on
 * this boot of this machine, in this PID namespace, whose pid now names no process or a
 * process started at another time (this one included: a restarted container's PID 1 gets
 * the pid its predecessor had). An owner in another namespace or on another boot or machine,
 * one named another way, or any doubt: false, and the lease is waited out.
 */
export function ownerCertainlyGone(lease: RunLease, table: ProcessTable = linuxProcessTable()): boolean {
  const owner = parseOwnerId(lease.ownerId);
  if (owner === undefined) return false;
  const self = table.self();
  if (self === undefined || owner.bootId !== self.bootId || owner.pidNamespace !== self.pidNamespace) return false;
  if (owner.pid === self.pid) return owner.startTime !== self.startTime;
  const startTime = table.startTimeOf(owner.pid);
  if (startTime === undefined) return false;
  return startTime === null || startTime !== owner.startTime;
}

function parseOwnerId(ownerId: string): ProcessIdentity | undefined {
  const parts = ownerId.split(":");
  // A host name with a colon in it cannot be told apart: such an owner is waited out.
  if (parts.length !== 7 || parts[0] !== PREFIX) return undefined;
  const [, , pidText, , bootId, pidNamespace, startTime] = parts as [string, string, string, string, string, string, string];
  const pid = Number(pidText);
  if (!Number.isSafeInteger(pid) || pid <= 0 || bootId === "" || pidNamespace === "" || !/^\d+$/.test(startTime)) return undefined;
  return { bootId, pidNamespace, pid, startTime };
}

/** The process table of a Linux host, read from `/proc`; an empty one (never certain) elsewhere. */
export function linuxProcessTable(): ProcessTable {
  let self: ProcessIdentity | undefined | null = null;
  return {
    self() {
      if (self === null) self = readSelf();
      return self;
    },
    startTimeOf(pid) {
      try {
        return startTimeIn(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "ENOENT" ? null : undefined;
      }
    },
  };
}

function readSelf(): ProcessIdentity | undefined {
  try {
    // A /proc mounted for another PID namespace names other processes by these pids: trust it only when it names this one.
    if (readlinkSync("/proc/self") !== String(process.pid)) return undefined;
    const bootId = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const pidNamespace = /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
    const startTime = startTimeIn(readFileSync(`/proc/${process.pid}/stat`, "utf8"));
    if (bootId === "" || bootId.includes(":") || pidNamespace === undefined || startTime === undefined) return undefined;
    return { bootId, pidNamespace, pid: process.pid, startTime };
  } catch {
    return undefined;
  }
}

/** Field 22 of a `/proc/<pid>/stat` line; the command name (field 2) may hold spaces and parentheses, so count from its end. */
function startTimeIn(stat: string): string | undefined {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const startTime = fields[19];
  return startTime !== undefined && /^\d+$/.test(startTime) ? startTime : undefined;
}

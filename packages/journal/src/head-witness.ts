import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  statSync,
  writeSync,
  type Stats,
} from "node:fs";
import { dirname } from "node:path";
import { YokeError, type JournalHead, type RunScope } from "@yoke/protocol";

const FORMAT = "yoke-head-witness";
const VERSION = 1;
/** Past this size the witness is rewritten as one line per run. */
export const DEFAULT_COMPACT_AT_BYTES = 1 << 20;

interface Header {
  readonly format: typeof FORMAT;
  readonly version: number;
  readonly journalId: string;
}

/**
 * The head witness of a SQLite journal: a sidecar file, outside the database it protects,
 * holding the last acknowledged head (length and hash) of every run. It is an append-only
 * text file — a header line, then one `[tenantId, runId, length, hash]` line per append,
 * written after the append commits and before it is acknowledged (fsynced at
 * `synchronous: "full"`) — compacted to one line per run when it grows.
 *
 * A run whose journal holds fewer events than its witnessed length lost acknowledged
 * events (JOURNAL_TRUNCATED); one whose event at the witnessed seq has another hash was
 * rewritten (JOURNAL_WITNESS_INVALID). A crash between the commit and the witness line
 * leaves the witness one append behind, which is never an error: that append was not
 * acknowledged.
 */
export class HeadWitness {
  readonly path: string;
  readonly journalId: string;
  private readonly heads = new Map<string, { scope: RunScope; head: JournalHead }>();
  private readonly compactAtBytes: number;
  private fd: number | undefined;
  private inode = 0;
  private offset = 0;

  private constructor(path: string, journalId: string, compactAtBytes: number) {
    this.path = path;
    this.journalId = journalId;
    this.compactAtBytes = compactAtBytes;
  }

  /** The witness at `path`, or null when there is no file. A malformed file is JOURNAL_WITNESS_INVALID. */
  static read(path: string, compactAtBytes = DEFAULT_COMPACT_AT_BYTES): HeadWitness | null {
    if (!existsSync(path)) return null;
    const bytes = readBytes(path);
    const newline = bytes.indexOf(10);
    const header = parseHeader(path, bytes.toString("utf8", 0, newline < 0 ? bytes.length : newline));
    const witness = new HeadWitness(path, header.journalId, compactAtBytes);
    witness.inode = statSync(path).ino;
    witness.fold(bytes, newline + 1);
    return witness;
  }

  /**
   * Writes a new witness holding `heads` (atomically: a temp file, fsynced, renamed over
   * `path`, the directory fsynced), replacing any file there.
   */
  static create(
    path: string,
    journalId: string,
    heads: Iterable<{ scope: RunScope; head: JournalHead }>,
    compactAtBytes = DEFAULT_COMPACT_AT_BYTES,
  ): HeadWitness {
    const witness = new HeadWitness(path, journalId, compactAtBytes);
    for (const entry of heads) witness.heads.set(keyOf(entry.scope), entry);
    witness.rewrite();
    return witness;
  }

  get runs(): number {
    return this.heads.size;
  }

  entries(): IterableIterator<{ scope: RunScope; head: JournalHead }> {
    return this.heads.values();
  }

  expected(scope: RunScope): JournalHead | undefined {
    return this.heads.get(keyOf(scope))?.head;
  }

  /** Reads what other processes appended since the last look (all of it again after a compaction replaced the file). */
  refresh(): void {
    let stat: Stats;
    try {
      stat = statSync(this.path);
    } catch (error) {
      throw witnessError(this.path, "the head witness file disappeared", error);
    }
    if (stat.ino !== this.inode || stat.size < this.offset) {
      const reread = HeadWitness.read(this.path, this.compactAtBytes);
      if (reread === null || reread.journalId !== this.journalId) throw witnessError(this.path, "the head witness file was replaced by another journal's");
      this.closeFile();
      this.heads.clear();
      for (const [key, entry] of reread.heads) this.heads.set(key, entry);
      this.inode = reread.inode;
      this.offset = reread.offset;
      return;
    }
    if (stat.size === this.offset) return;
    const fd = openSync(this.path, "r");
    try {
      const buffer = Buffer.alloc(stat.size - this.offset);
      readSync(fd, buffer, 0, buffer.length, this.offset);
      this.fold(buffer, 0, this.offset);
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Records an acknowledged head. The caller holds the journal's write lock, so no other
   * process compacts the file meanwhile. `sync`: fsync before returning.
   */
  record(scope: RunScope, head: JournalHead, sync: boolean): void {
    // Other journals on this file may have written since: read up to the end first, so the
    // offset stays at a line boundary (nobody else writes while the caller holds the lock).
    this.refresh();
    const key = keyOf(scope);
    const known = this.heads.get(key);
    if (known === undefined || known.head.length < head.length) this.heads.set(key, { scope, head });
    if (this.offset >= this.compactAtBytes) {
      this.rewrite();
      return;
    }
    const fd = this.openFile();
    const line = `${JSON.stringify([scope.tenantId, scope.runId, head.length, head.hash])}\n`;
    const written = writeSync(fd, line);
    if (written !== Buffer.byteLength(line)) throw witnessError(this.path, "a head witness line was written short");
    if (sync) fdatasyncSync(fd);
    this.offset += written;
  }

  close(): void {
    this.closeFile();
  }

  /** Folds the complete lines of `bytes` (which start at file offset `baseOffset`) from byte `from` on. */
  private fold(bytes: Buffer, from: number, baseOffset = 0): void {
    let start = from;
    for (;;) {
      const end = bytes.indexOf(10, start);
      // A line without its newline is a write a crash cut: that append was never acknowledged.
      if (end < 0) break;
      const at = baseOffset + start;
      let entry: unknown;
      try {
        entry = JSON.parse(bytes.toString("utf8", start, end));
      } catch (error) {
        throw witnessError(this.path, `the line at byte ${at} is not JSON`, error);
      }
      if (
        !Array.isArray(entry) ||
        entry.length !== 4 ||
        typeof entry[0] !== "string" ||
        typeof entry[1] !== "string" ||
        !Number.isSafeInteger(entry[2]) ||
        (entry[2] as number) < 1 ||
        typeof entry[3] !== "string"
      ) {
        throw witnessError(this.path, `the line at byte ${at} is not a head`);
      }
      const scope = { tenantId: entry[0] as string, runId: entry[1] as string };
      const key = keyOf(scope);
      const known = this.heads.get(key);
      if (known === undefined || known.head.length < (entry[2] as number))
        this.heads.set(key, { scope, head: { length: entry[2] as number, hash: entry[3] as string } });
      start = end + 1;
    }
    this.offset = baseOffset + start;
  }

  private rewrite(): void {
    this.closeFile();
    const temp = `${this.path}.tmp-${process.pid}`;
    const lines = [JSON.stringify({ format: FORMAT, version: VERSION, journalId: this.journalId } satisfies Header)];
    for (const { scope, head } of this.heads.values()) lines.push(JSON.stringify([scope.tenantId, scope.runId, head.length, head.hash]));
    const text = `${lines.join("\n")}\n`;
    const fd = openSync(temp, "w");
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, this.path);
    syncDirectory(dirname(this.path));
    this.inode = statSync(this.path).ino;
    this.offset = Buffer.byteLength(text);
  }

  private openFile(): number {
    if (this.fd === undefined) {
      this.fd = openSync(this.path, "a");
      if (fstatSync(this.fd).ino !== this.inode) {
        this.closeFile();
        this.refresh();
        this.fd = openSync(this.path, "a");
      }
    }
    return this.fd;
  }

  private closeFile(): void {
    if (this.fd !== undefined) {
      const fd = this.fd;
      this.fd = undefined;
      closeSync(fd);
    }
  }
}

function readBytes(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw witnessError(path, "the head witness could not be read", error);
  }
}

function parseHeader(path: string, line: string): Header {
  let header: Partial<Header> | undefined;
  try {
    header = JSON.parse(line) as Partial<Header>;
  } catch (error) {
    throw witnessError(path, "the head witness has no valid header", error);
  }
  if (header?.format !== FORMAT || typeof header.journalId !== "string") throw witnessError(path, "the head witness has no valid header");
  if (header.version !== VERSION) throw witnessError(path, `the head witness has version ${String(header.version)}; this @yoke/journal reads ${VERSION}`);
  return header as Header;
}

function syncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, "r");
    fsyncSync(fd);
  } catch {
    // Some file systems refuse to fsync a directory; the rename is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export function witnessError(path: string, why: string, cause?: unknown): YokeError {
  return new YokeError("JOURNAL_WITNESS_INVALID", `${path}: ${why}`, { details: { witness: path }, ...(cause === undefined ? {} : { cause }) });
}

function keyOf(scope: RunScope): string {
  return JSON.stringify([scope.tenantId, scope.runId]);
}

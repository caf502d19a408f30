import {
  closeSync,
  existsSync,
  fdatasyncSync,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
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
 *
 * Torn writes (a crash or a full disk in the middle of a line): a line is only ever written
 * by one `write` at the end of the file, so a torn one is an unterminated tail. Readers
 * ignore it; the next writer (under the journal's write lock) cuts it off before it appends,
 * and a writer whose own line was cut short (ENOSPC) cuts it off at once and fails typed. Only
 * bytes after the last newline are ever cut, and every acknowledged line ends with one, so no
 * recovery drops a head. A compaction is written whole to a temp file before it replaces the
 * witness. Files from before this fix may hold a torn fragment glued to the line written after
 * it; that line is read, the fragment (never acknowledged) skipped.
 */
export class HeadWitness {
  readonly path: string;
  readonly journalId: string;
  private readonly heads = new Map<string, { scope: RunScope; head: JournalHead }>();
  private readonly compactAtBytes: number;
  private fd: number | undefined;
  private inode = 0;
  /** End of the last complete line read: where the next line goes. */
  private offset = 0;
  /** The file's size at the last look: past `offset`, a torn tail. */
  private size = 0;

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
    witness.size = bytes.length;
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
    const all = new Map<string, { scope: RunScope; head: JournalHead }>();
    for (const entry of heads) all.set(keyOf(entry.scope), entry);
    witness.rewrite(all);
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
      this.size = reread.size;
      return;
    }
    this.size = stat.size;
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
    const newer = known === undefined || known.head.length < head.length;
    if (this.offset >= this.compactAtBytes) {
      const heads = new Map(this.heads);
      if (newer) heads.set(key, { scope, head });
      this.rewrite(heads);
      return;
    }
    const fd = this.openFile();
    // A torn line (a crash, or a full disk, mid-write) is never glued to: cut it off first.
    if (this.size > this.offset) this.cutTo(fd, this.offset);
    const line = Buffer.from(`${JSON.stringify([scope.tenantId, scope.runId, head.length, head.hash])}\n`);
    try {
      writeAll(fd, line);
    } catch (error) {
      // Our own line, torn: cut it off now, so the file ends at a line boundary again.
      this.size = this.offset + line.length;
      try {
        this.cutTo(fd, this.offset);
      } catch {
        // The next writer cuts it (the size above says there is a tail).
      }
      throw writeError(this.path, "a head witness line could not be written", error);
    }
    this.offset += line.length;
    this.size = this.offset;
    if (newer) this.heads.set(key, { scope, head });
    if (sync) {
      try {
        fdatasyncSync(fd);
      } catch (error) {
        throw writeError(this.path, "a head witness line could not be synced", error);
      }
    }
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
      const entry = parseLine(this.path, bytes.toString("utf8", start, end), baseOffset + start);
      const scope = { tenantId: entry[0], runId: entry[1] };
      const key = keyOf(scope);
      const known = this.heads.get(key);
      if (known === undefined || known.head.length < entry[2]) this.heads.set(key, { scope, head: { length: entry[2], hash: entry[3] } });
      start = end + 1;
    }
    this.offset = baseOffset + start;
  }

  /** Cuts the file back to `length` bytes (a torn tail), durably. */
  private cutTo(fd: number, length: number): void {
    try {
      ftruncateSync(fd, length);
      fdatasyncSync(fd);
    } catch (error) {
      throw writeError(this.path, "a torn head witness line could not be cut off", error);
    }
    this.size = length;
  }

  /** Replaces the file with one line per run of `heads`: written whole to a temp file first, or not at all. */
  private rewrite(heads: Map<string, { scope: RunScope; head: JournalHead }>): void {
    this.closeFile();
    const temp = `${this.path}.tmp-${process.pid}`;
    const lines = [JSON.stringify({ format: FORMAT, version: VERSION, journalId: this.journalId } satisfies Header)];
    for (const { scope, head } of heads.values()) lines.push(JSON.stringify([scope.tenantId, scope.runId, head.length, head.hash]));
    const text = Buffer.from(`${lines.join("\n")}\n`);
    try {
      const fd = openSync(temp, "w");
      try {
        writeAll(fd, text);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(temp, this.path);
    } catch (error) {
      // The witness in place is untouched: a short compaction must never replace it.
      rmSync(temp, { force: true });
      throw writeError(this.path, "the head witness could not be rewritten", error);
    }
    syncDirectory(dirname(this.path));
    this.heads.clear();
    for (const [key, entry] of heads) this.heads.set(key, entry);
    this.inode = statSync(this.path).ino;
    this.offset = text.length;
    this.size = text.length;
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

type HeadLine = [tenantId: string, runId: string, length: number, hash: string];

/**
 * One line of the witness. A line that is not a head is JOURNAL_WITNESS_INVALID, except the
 * glued form a torn write left in files written before torn tails were cut off: a fragment
 * of a line (it starts with the `[` every line starts with) directly followed by a complete head. Only the fragment,
 * whose append was never acknowledged, is skipped; the head after it is read.
 */
function parseLine(path: string, text: string, at: number): HeadLine {
  const whole = asHead(text);
  if (whole !== undefined) return whole;
  // The head's own start: a `["` inside a head line never begins a valid head (a `"` inside a
  // string is escaped), so the rightmost `["` that does is where the glued head begins.
  for (let start = text.lastIndexOf('["'); start > 0; start = text.lastIndexOf('["', start - 1)) {
    const glued = asHead(text.slice(start));
    if (glued !== undefined && text.startsWith("[")) return glued;
  }
  let json = true;
  try {
    JSON.parse(text);
  } catch {
    json = false;
  }
  throw witnessError(path, `the line at byte ${at} is not ${json ? "a head" : "JSON"}`);
}

function asHead(text: string): HeadLine | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(text);
  } catch {
    return undefined;
  }
  const valid =
    Array.isArray(entry) &&
    entry.length === 4 &&
    typeof entry[0] === "string" &&
    typeof entry[1] === "string" &&
    Number.isSafeInteger(entry[2]) &&
    (entry[2] as number) >= 1 &&
    typeof entry[3] === "string";
  return valid ? (entry as HeadLine) : undefined;
}

/** Writes all of `bytes` at the end of the file (a short write goes on until it throws). */
function writeAll(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}

/** A failed write of the witness (a full disk, an I/O error): retrying alone will not fix it. */
function writeError(path: string, why: string, cause: unknown): YokeError {
  if (YokeError.isInstance(cause)) return cause;
  const errno = (cause as NodeJS.ErrnoException | undefined)?.code ?? null;
  return new YokeError("JOURNAL_UNAVAILABLE", `${path}: ${why}${errno === null ? "" : ` (${errno})`}`, {
    retryable: false,
    details: { witness: path, errno },
    cause,
  });
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

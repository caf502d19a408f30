import { randomUUID } from "node:crypto";
import { existsSync, renameSync } from "node:fs";
import { YokeError, type JournalHead, type RunScope, type VerifyResult } from "@yoke/protocol";
import { drive } from "./awaitable.js";
import { HeadWitness } from "./head-witness.js";
import type { SqliteDatabaseLike } from "./sqlite-database.js";
import type { EventStatements } from "./sqlite-event-statements.js";
import { databaseDeletedError, otherJournalError, witnessMissingError } from "./witness-advice.js";
import { witnessFailure, witnessFailureError } from "./witness-rules.js";

export { unwitnessedError, witnessFailureError } from "./witness-rules.js";

/** `yoke_meta` key binding a journal file to its witness: both hold the same journal id. */
const META_KEY = "head_witness";

/**
 * `"file"` (default for a journal file): keep a head witness beside it and refuse a journal
 * that is behind it. `"adopt"`: the same, but first accept the journal as it is now and
 * write a new witness from it (a copy made without its witness, a restored older backup, a
 * loss you have decided to live with); a witness beside it that does not match is moved
 * aside, never deleted. `"new"`: start a new journal where the database was deleted or
 * emptied; the old witness, which records the lost runs, is moved aside (refused when the
 * database holds events). `"none"`: no witness; losses of whole appends go unnoticed.
 */
export type HeadWitnessMode = "file" | "adopt" | "new" | "none";

type ChainFailure = Extract<VerifyResult, { ok: false }>;

/** The witness a SQLite journal checks its runs against and records its appends in. */
export class WitnessGuard {
  readonly witness: HeadWitness;
  /** Where a witness this open replaced (`"adopt"`, `"new"`) was moved; null when none was. */
  readonly setAside: string | null;
  private readonly statements: EventStatements;

  constructor(witness: HeadWitness, statements: EventStatements, setAside: string | null = null) {
    this.witness = witness;
    this.statements = statements;
    this.setAside = setAside;
  }

  /** The failure of `scope` against the witness: fewer events than witnessed, or another hash at the witnessed head. */
  failure(scope: RunScope): ChainFailure | null {
    // The statements answer synchronously: the steps run to the end in this call.
    return drive(witnessFailure(this.statements, scope, this.witness.expected(scope))) as ChainFailure | null;
  }

  /** Throws JOURNAL_TRUNCATED or JOURNAL_WITNESS_INVALID when `scope` fails its witness. */
  check(scope: RunScope): void {
    const failure = this.failure(scope);
    if (failure !== null) throw witnessFailureError(scope, failure, this.witness.path);
  }

  /** Every witnessed run, checked: what a journal does on open. */
  checkAll(): void {
    for (const { scope } of this.witness.entries()) this.check(scope);
  }

  /** The first witnessed run that fails its witness, or null. */
  failureOfAny(): ChainFailure | null {
    for (const { scope } of this.witness.entries()) {
      const failure = this.failure(scope);
      if (failure !== null) return failure;
    }
    return null;
  }

  record(scope: RunScope, head: JournalHead, sync: boolean): void {
    this.witness.record(scope, head, sync);
  }

  close(): void {
    this.witness.close();
  }
}

/**
 * Before a new journal is written into an empty file: refuses when a witness beside it says
 * the file held events (it was truncated or replaced), so an empty file is never silently
 * taken for a new journal.
 */
export function refuseEmptyOverWitness(path: string): void {
  const witness = HeadWitness.read(path);
  if (witness !== null && witness.runs > 0) {
    witness.close();
    throw databaseDeletedError(path, witness.runs, firstScope(witness));
  }
  witness?.close();
}

/**
 * Binds the journal in `db` to the witness at `path` and checks every witnessed run:
 * - the journal names a witness (`yoke_meta.head_witness`): it must be there, with that id;
 * - it names none (a journal from before witnesses, or just created): a witness found beside
 *   it must match it run for run; without one, a witness is written from the journal's
 *   current heads, then named in the journal.
 * `readOnly`: checks, never writes; a journal without a witness is opened unwitnessed (null).
 */
export function openWitnessGuard(
  db: SqliteDatabaseLike,
  statements: EventStatements,
  path: string,
  options: { readonly mode: WitnessOpenMode; readonly readOnly: boolean },
): WitnessGuard | null {
  if (options.readOnly) return bindWitness(db, statements, path, options);
  // Under the write lock: two processes opening one journal for the first time bind one witness.
  db.prepare("BEGIN IMMEDIATE").run();
  try {
    const guard = bindWitness(db, statements, path, options);
    db.prepare("COMMIT").run();
    return guard;
  } catch (error) {
    if (db.inTransaction) db.prepare("ROLLBACK").run();
    throw error;
  }
}

type WitnessOpenMode = Exclude<HeadWitnessMode, "none">;

function bindWitness(
  db: SqliteDatabaseLike,
  statements: EventStatements,
  path: string,
  options: { readonly mode: WitnessOpenMode; readonly readOnly: boolean },
): WitnessGuard | null {
  const named = readMeta(db);
  if (options.mode === "new" && !options.readOnly) return startNew(db, statements, path);
  if (options.mode === "adopt" && !options.readOnly) return adopt(db, statements, path, named ?? randomUUID());
  const found = HeadWitness.read(path);
  if (named !== null) {
    if (found === null) throw witnessMissingError(path, named);
    if (found.journalId !== named) {
      found.close();
      throw otherJournalError(path, found.journalId, named);
    }
    const guard = new WitnessGuard(found, statements);
    guard.checkAll();
    return guard;
  }
  if (found !== null) {
    // A database with no events under a witness that records runs: a new file where the old one was deleted.
    if (found.runs > 0 && statements.allHeads().length === 0) {
      found.close();
      throw databaseDeletedError(path, found.runs, firstScope(found));
    }
    const guard = new WitnessGuard(found, statements);
    guard.checkAll();
    if (!options.readOnly) writeMeta(db, found.journalId);
    return guard;
  }
  if (options.readOnly) return null;
  return adopt(db, statements, path, randomUUID());
}

/** A new journal over a database that holds no events: the witness of the lost one moved aside. */
function startNew(db: SqliteDatabaseLike, statements: EventStatements, path: string): WitnessGuard {
  const runs = statements.allHeads().length;
  if (runs > 0) {
    throw new YokeError(
      "CONFIG_INVALID",
      `${path.slice(0, -"-head".length)} holds ${runs} run(s): --new-journal (headWitness: "new") starts a journal only where the database was deleted or emptied; open this one without it`,
      { details: { witness: path, runs, option: "headWitness" } },
    );
  }
  const found = HeadWitness.read(path);
  found?.close();
  const setAside = found === null ? null : moveAside(path, found.journalId);
  const journalId = randomUUID();
  const witness = HeadWitness.create(path, journalId, []);
  writeMeta(db, journalId);
  return new WitnessGuard(witness, statements, setAside);
}

/** Accepts the journal as it is: a witness written from its heads. One beside it that does not match it is moved aside first. */
function adopt(db: SqliteDatabaseLike, statements: EventStatements, path: string, journalId: string): WitnessGuard {
  let setAside: string | null = null;
  if (existsSync(path)) {
    let matches = false;
    try {
      const found = HeadWitness.read(path);
      if (found !== null) {
        matches = found.journalId === journalId && new WitnessGuard(found, statements).failureOfAny() === null;
        found.close();
      }
    } catch (error) {
      if (!YokeError.hasCode(error, "JOURNAL_WITNESS_INVALID")) throw error;
    }
    if (!matches) setAside = moveAside(path, journalId);
  }
  const witness = HeadWitness.create(path, journalId, statements.allHeads());
  writeMeta(db, journalId);
  return new WitnessGuard(witness, statements, setAside);
}

/** Renames the witness at `path` to a free `<path>.replaced-<id>[.n]`, and says where. */
function moveAside(path: string, id: string): string {
  let target = `${path}.replaced-${id}`;
  for (let n = 1; existsSync(target); n++) target = `${path}.replaced-${id}.${n}`;
  try {
    renameSync(path, target);
  } catch (error) {
    throw new YokeError(
      "JOURNAL_UNAVAILABLE",
      `${path}: the head witness could not be moved aside to ${target} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      {
        retryable: false,
        details: { witness: path, filename: target },
        cause: error,
      },
    );
  }
  return target;
}

function firstScope(witness: HeadWitness): RunScope | undefined {
  for (const { scope } of witness.entries()) return scope;
  return undefined;
}

function readMeta(db: SqliteDatabaseLike): string | null {
  const row = db.prepare("SELECT value FROM yoke_meta WHERE key = ?").get(META_KEY) as { value: string } | undefined;
  return row?.value ?? null;
}

function writeMeta(db: SqliteDatabaseLike, journalId: string): void {
  db.prepare("INSERT INTO yoke_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(META_KEY, journalId);
}

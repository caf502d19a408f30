import { randomUUID } from "node:crypto";
import { YokeError, type JournalHead, type RunScope, type VerifyResult } from "@yoke/protocol";
import { drive } from "./awaitable.js";
import { HeadWitness, witnessError } from "./head-witness.js";
import type { SqliteDatabaseLike } from "./sqlite-database.js";
import type { EventStatements } from "./sqlite-event-statements.js";
import { witnessFailure, witnessFailureError } from "./witness-rules.js";

export { unwitnessedError, witnessFailureError } from "./witness-rules.js";

/** `yoke_meta` key binding a journal file to its witness: both hold the same journal id. */
const META_KEY = "head_witness";

/**
 * `"file"` (default for a journal file): keep a head witness beside it and refuse a journal
 * that is behind it. `"adopt"`: the same, but first accept the journal as it is now and
 * write a new witness from it (after a loss you have decided to live with, or a witness
 * deleted on purpose). `"none"`: no witness; losses of whole appends go unnoticed.
 */
export type HeadWitnessMode = "file" | "adopt" | "none";

type ChainFailure = Extract<VerifyResult, { ok: false }>;

/** The witness a SQLite journal checks its runs against and records its appends in. */
export class WitnessGuard {
  readonly witness: HeadWitness;
  private readonly statements: EventStatements;

  constructor(witness: HeadWitness, statements: EventStatements) {
    this.witness = witness;
    this.statements = statements;
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
    throw new YokeError(
      "JOURNAL_TRUNCATED",
      `the journal file holds no events, but its head witness (${path}) records ${witness.runs} run(s): the file was truncated or replaced`,
      { details: { witness: path, runs: witness.runs } },
    );
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
  options: { readonly mode: "file" | "adopt"; readonly readOnly: boolean },
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

function bindWitness(
  db: SqliteDatabaseLike,
  statements: EventStatements,
  path: string,
  options: { readonly mode: "file" | "adopt"; readonly readOnly: boolean },
): WitnessGuard | null {
  const named = readMeta(db);
  if (options.mode === "adopt" && !options.readOnly) return adopt(db, statements, path, named ?? randomUUID());
  const found = HeadWitness.read(path);
  if (named !== null) {
    if (found === null)
      throw witnessError(
        path,
        `the journal names head witness ${named}, but the file is missing (open with headWitness: "adopt" to accept the journal as it is)`,
      );
    if (found.journalId !== named) {
      found.close();
      throw witnessError(path, `the head witness belongs to journal ${found.journalId}, not to this one (${named})`);
    }
    const guard = new WitnessGuard(found, statements);
    guard.checkAll();
    return guard;
  }
  if (found !== null) {
    const guard = new WitnessGuard(found, statements);
    guard.checkAll();
    if (!options.readOnly) writeMeta(db, found.journalId);
    return guard;
  }
  if (options.readOnly) return null;
  return adopt(db, statements, path, randomUUID());
}

function adopt(db: SqliteDatabaseLike, statements: EventStatements, path: string, journalId: string): WitnessGuard {
  const witness = HeadWitness.create(path, journalId, statements.allHeads());
  writeMeta(db, journalId);
  return new WitnessGuard(witness, statements);
}

function readMeta(db: SqliteDatabaseLike): string | null {
  const row = db.prepare("SELECT value FROM yoke_meta WHERE key = ?").get(META_KEY) as { value: string } | undefined;
  return row?.value ?? null;
}

function writeMeta(db: SqliteDatabaseLike, journalId: string): void {
  db.prepare("INSERT INTO yoke_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(META_KEY, journalId);
}

import { existsSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError, type JournalKeyProvider, type JournalV1 } from "@yoke/protocol";

/**
 * A journal the CLI opened, which can also name its tenants (the `JournalV1` interface reads
 * per tenant only; listing every tenant is an operator's question, answered by the store).
 * The run viewer is handed this object as its `JournalV1`.
 */
export interface CliJournal extends JournalV1 {
  /** Every tenant with at least one event, in order. */
  tenants(): Promise<readonly string[]>;
  /** What the user named (`--journal`), resolved: shown in messages. */
  readonly location: string;
  /** The head witness in use (null: none). */
  readonly headWitnessPath: string | null;
  /** Where `--adopt-witness` or `--new-journal` moved the witness it replaced; null when it moved none. */
  readonly headWitnessSetAside: string | null;
}

export interface OpenStoreOptions {
  /** Open for appends (import, resume); default read-only. */
  readonly write?: boolean;
  /** Create the store when it does not exist (import); default false. */
  readonly create?: boolean;
  /** The keys of a keyed journal (`--key-file`); without them its events are `key_required`. */
  readonly keys?: JournalKeyProvider;
  /**
   * `--adopt-witness`: accept the journal as it is and write its head witness anew (a copy
   * made without its witness, a restored older backup). `--new-journal`: start a new journal
   * where the database was deleted or emptied. Either opens the journal for writing; a witness
   * replaced is moved aside, never deleted.
   */
  readonly witness?: "adopt" | "new";
}

/** The default store: `$YOKE_JOURNAL`, else `./yoke.sqlite`. */
export function defaultJournalLocation(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.YOKE_JOURNAL;
  return fromEnv !== undefined && fromEnv !== "" ? fromEnv : "yoke.sqlite";
}

/** `yoke.db` beside a missing `yoke.sqlite`: a journal made by following the runtime's older examples. */
function formerDefaultBeside(filename: string): string | undefined {
  if (basename(filename) !== "yoke.sqlite") return undefined;
  const former = join(dirname(filename), "yoke.db");
  return existsSync(former) ? former : undefined;
}

/**
 * Opens the journal a `--journal` value names. Today: a SQLite file (a path, or
 * `sqlite:<path>`). A URL with another scheme is CONFIG_INVALID, so a Postgres store
 * (`postgres://…`) can be added here without changing any command.
 *
 * @example
 * ```ts
 * const journal = await openStore("runs.sqlite");
 * for (const tenantId of await journal.tenants()) for await (const run of journal.listRuns(tenantId)) console.log(run.runId);
 * await journal.close();
 * ```
 */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<CliJournal> {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1]?.toLowerCase();
  if (scheme !== undefined) {
    throw new YokeError("CONFIG_INVALID", `--journal ${location}: no store for ${scheme}:// URLs yet; pass a SQLite file`, { details: { location, scheme } });
  }
  const filename = resolve(location.startsWith("sqlite:") ? location.slice("sqlite:".length) : location);
  if (!options.create && options.witness !== "new" && !existsSync(filename)) {
    const hint = formerDefaultBeside(filename);
    const witness = `${filename}-head`;
    throw new YokeError(
      "JOURNAL_NOT_INITIALIZED",
      existsSync(witness)
        ? `no journal at ${filename}, but its head witness ${witness} is there: the database was deleted. ` +
            "To start a new journal here, pass --new-journal (the old witness is moved aside); to keep the old journal, restore its database"
        : hint === undefined
          ? `no journal at ${filename} (pass --journal <file>, or set YOKE_JOURNAL)`
          : `no journal at ${filename}, but ${hint} exists (the name the runtime's examples once used): pass --journal ${hint}, or rename it to ${basename(filename)}`,
      { details: { filename } },
    );
  }
  const write = options.write === true || options.witness !== undefined;
  const journal = await createSqliteJournal({
    filename,
    readOnly: !write,
    ...(options.create || options.witness === "new" ? {} : { create: false }),
    ...(options.witness === undefined ? {} : { headWitness: options.witness }),
    ...(options.keys === undefined ? {} : { keys: options.keys }),
    integrityCheck: "none",
  });
  return Object.assign(Object.create(null) as object, {
    specificationVersion: journal.specificationVersion,
    capabilities: journal.capabilities,
    leases: journal.leases,
    location: filename,
    headWitnessPath: journal.headWitnessPath,
    headWitnessSetAside: journal.headWitnessSetAside,
    append: journal.append.bind(journal),
    read: journal.read.bind(journal),
    head: journal.head.bind(journal),
    verify: journal.verify.bind(journal),
    listRuns: journal.listRuns.bind(journal),
    close: journal.close.bind(journal),
    tenants: () => sqliteTenants(filename),
  }) as CliJournal;
}

async function sqliteTenants(filename: string): Promise<readonly string[]> {
  let Database: typeof import("better-sqlite3");
  try {
    ({ default: Database } = await import("better-sqlite3"));
  } catch (error) {
    throw new YokeError("DEPENDENCY_MISSING", "the SQLite store needs better-sqlite3: install it (npm install better-sqlite3)", {
      cause: error,
      details: { package: "better-sqlite3" },
    });
  }
  const db = new Database(filename, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare("SELECT DISTINCT tenant_id AS tenant FROM events ORDER BY tenant_id").all() as { tenant: string }[];
    return rows.map((row) => row.tenant);
  } catch (error) {
    throw new YokeError("JOURNAL_UNAVAILABLE", `cannot list the tenants of ${filename}: ${(error as Error).message}`, { details: { filename } });
  } finally {
    db.close();
  }
}

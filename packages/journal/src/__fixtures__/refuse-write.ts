import type { RunScope } from "@yoke/protocol";
import Database from "better-sqlite3";

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The SQLite journal contract's `refuseWriteAt`: a trigger, written into the journal file by
 * a second connection (as another process could), that aborts the INSERT of one event row. A
 * batch that reaches that row fails at the database after the rows before it were inserted.
 */
export function refuseWriteAtFile(filename: string): (scope: RunScope, seq: number) => void {
  let next = 0;
  return (scope, seq) => {
    const db = new Database(filename, { timeout: 5_000 });
    try {
      db.exec(
        `CREATE TRIGGER refuse_write_${next++} BEFORE INSERT ON events ` +
          `WHEN NEW.tenant_id = ${quoted(scope.tenantId)} AND NEW.run_id = ${quoted(scope.runId)} AND NEW.seq = ${seq} ` +
          `BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END`,
      );
    } finally {
      db.close();
    }
  };
}

// A journal decorator that counts durable appends and can SIGKILL the process right after
// the Nth one: the append has resolved (it is on disk), and nothing after it runs.
import type { JournalV1 } from "@yoke/protocol";

export interface CountingJournal extends JournalV1 {
  readonly appends: number;
}

export function countAppends(journal: JournalV1, options: { crashAfter?: number } = {}): CountingJournal {
  let appends = 0;
  return {
    specificationVersion: journal.specificationVersion,
    capabilities: journal.capabilities,
    get appends() {
      return appends;
    },
    async append(scope, expectedSeq, drafts) {
      const result = await journal.append(scope, expectedSeq, drafts);
      appends += 1;
      if (appends === options.crashAfter) process.kill(process.pid, "SIGKILL");
      return result;
    },
    read: (scope, readOptions) => journal.read(scope, readOptions),
    head: (scope) => journal.head(scope),
    verify: (scope) => journal.verify(scope),
    listRuns: (tenantId) => journal.listRuns(tenantId),
    close: () => journal.close(),
  };
}

// Wraps a journal so the process SIGKILLs itself right after the Nth durable append: the
// append has resolved (it is on disk), and nothing after it runs.
import type { JournalV1 } from "@yoke/protocol";

export function crashAfterAppends(journal: JournalV1, appends: number): JournalV1 {
  let count = 0;
  return {
    specificationVersion: journal.specificationVersion,
    capabilities: journal.capabilities,
    async append(scope, expectedSeq, drafts) {
      const result = await journal.append(scope, expectedSeq, drafts);
      count += 1;
      if (count === appends) process.kill(process.pid, "SIGKILL");
      return result;
    },
    read: (scope, options) => journal.read(scope, options),
    head: (scope) => journal.head(scope),
    verify: (scope) => journal.verify(scope),
    listRuns: (tenantId) => journal.listRuns(tenantId),
    close: () => journal.close(),
  };
}

/** Counts appends, so the demo can say how many kill points a run has. */
export function countAppends(journal: JournalV1): JournalV1 & { readonly appends: number } {
  let count = 0;
  return {
    specificationVersion: journal.specificationVersion,
    capabilities: journal.capabilities,
    get appends() {
      return count;
    },
    async append(scope, expectedSeq, drafts) {
      const result = await journal.append(scope, expectedSeq, drafts);
      count += 1;
      return result;
    },
    read: (scope, options) => journal.read(scope, options),
    head: (scope) => journal.head(scope),
    verify: (scope) => journal.verify(scope),
    listRuns: (tenantId) => journal.listRuns(tenantId),
    close: () => journal.close(),
  };
}

// Runs the scenario in a fresh Node process and SIGKILLs it right after the append that
// admits the write of summary.md is durable: the write's action is `executing` in the
// journal with no outcome, which a resume must reconcile.
//
//   node scenario-child.ts <dir>
import { writeSync } from "node:fs";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import type { JournalV1 } from "@yoke/protocol";
import { RUN_ID, TASK, scenarioHarness, seedWorkspace } from "./scenario.ts";

const dir = process.argv[2]!;
const workspace = join(dir, "workspace");
seedWorkspace(workspace);
const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });

const killing: JournalV1 = Object.assign(Object.create(null) as object, store, {
  specificationVersion: store.specificationVersion,
  capabilities: store.capabilities,
  leases: store.leases,
  read: store.read.bind(store),
  head: store.head.bind(store),
  verify: store.verify.bind(store),
  listRuns: store.listRuns.bind(store),
  close: store.close.bind(store),
  async append(...args: Parameters<JournalV1["append"]>) {
    const result = await store.append(...args);
    const admitsWrite = args[2].some(
      (draft) =>
        draft.type === "action.admitted" &&
        (draft.data as { toolName?: string; input?: { content?: unknown } }).toolName === "write_file" &&
        // The input in full, or kept once in the response's call (`inputFromCall`, the form a runtime writes now).
        ((draft.data as { input?: { content?: unknown } }).input?.content !== undefined || (draft.data as { inputFromCall?: true }).inputFromCall === true),
    );
    if (admitsWrite) {
      writeSync(1, `KILLED_AFTER ${result.lastSeq}\n`);
      process.kill(process.pid, "SIGKILL");
    }
    return result;
  },
}) as JournalV1;

const { harness } = scenarioHarness({ journal: killing, workspace });
await harness.start(TASK, { runId: RUN_ID });
process.stdout.write("NOT_KILLED\n");
process.exit(3);

// A separate process submitting one idempotency key many times at once against a shared
// journal file: `node --import register-ts.mjs idempotency-worker.ts <filename> <ledger>
// <seen> <worker> <submissions> <workers>`. Opens the store, prints "ready", waits for a line on
// stdin so that all workers start together, then prints its outcomes as JSON.
// The effect appends the worker's name to <ledger>: one line per effect run. The winner's
// effect holds the key until every other worker has written to <seen> that it found the key
// in progress, so the claims race while the effect is running, not only before it.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { setImmediate as nextTurn } from "node:timers/promises";
import { YokeError, type IdempotencyOutcome } from "@yoke/protocol";
import { createSqliteIdempotencyStore } from "../idempotency-sqlite.js";
import { waitForGo } from "./lifeline.js";

const [filename, ledger, seen, worker, submissions, workers] = process.argv.slice(2) as [string, string, string, string, string, string];
const store = await createSqliteIdempotencyStore({ filename });
process.stdout.write("ready\n");
await waitForGo();

const others = () =>
  new Set(
    existsSync(seen)
      ? readFileSync(seen, "utf8")
          .split("\n")
          .filter((name) => name !== "" && name !== worker)
      : [],
  );
let reportedInProgress = false;
let claimed = 0;

async function effect(): Promise<IdempotencyOutcome> {
  appendFileSync(ledger, `${worker}\n`);
  while (others().size < Number(workers) - 1) await nextTurn();
  return { status: "succeeded", value: { ranIn: worker } };
}

async function submit(): Promise<IdempotencyOutcome> {
  const request = { tenantId: "tenant_a", key: "action_shared", argumentDigest: "digest_1", now: 0, leaseMs: 60_000 };
  for (;;) {
    const claim = await store.claim(request);
    if (claim.kind === "completed") return claim.outcome;
    if (claim.kind === "mismatch") throw new YokeError("IDEMPOTENCY_KEY_REUSED", "the key was stored with other arguments");
    if (claim.kind === "claimed") {
      claimed++;
      const outcome = await effect();
      await store.complete({ ...request, outcome });
      return outcome;
    }
    if (!reportedInProgress) {
      reportedInProgress = true;
      appendFileSync(seen, `${worker}\n`);
    }
    await nextTurn();
  }
}

const outcomes = await Promise.all(Array.from({ length: Number(submissions) }, submit));
await store.close();
process.stdout.write(JSON.stringify({ worker, claimed, outcomes }));

import { randomUUID } from "node:crypto";
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { YokeError, type JsonValue } from "@yoke/protocol";

/**
 * One request a fenced backend received, in arrival order, with its fencing token (`null`:
 * the writer presented none). `fence` is a reconciliation or compensation that presented a
 * token without writing: it raises the fence of its key all the same.
 */
export type FencedRequest =
  | { readonly op: "apply"; readonly id: string; readonly resource: string; readonly key: string; readonly value: JsonValue; readonly token: number | null }
  | { readonly op: "undo"; readonly id: string; readonly key: string; readonly token: number | null }
  | { readonly op: "fence"; readonly id: string; readonly key: string; readonly token: number };

/**
 * A request and the backend's verdict on it: accepted, or refused as stale (TOOL_FENCED).
 * `fence`: the highest token the backend had seen for its key or resource when it arrived.
 */
export type FencedEntry = FencedRequest & { readonly accepted: boolean; readonly fence: number | null };

/**
 * A backend that checks fencing tokens, for tests of what reaches it: it keeps the highest
 * token seen per key (the action id) and per resource, and refuses (TOOL_FENCED) an apply or
 * undo whose token is lower than either, or that carries none once a token was seen. A
 * reconciliation (`reconcile`) presents its token too, so after a new owner has reconciled an
 * action, the old owner's write of that action is refused even if it arrives late (a process
 * paused in flight). Every request is kept, refused ones included, in a file that several
 * processes share and that survives a SIGKILL.
 *
 * Requests are ordered by their position in the file (each is one `O_APPEND` write, fsync'd),
 * and a verdict is a function of the requests before it, so every process reads the same
 * verdicts without a lock.
 *
 * @example
 * ```ts
 * const bank = createFencedBackend(join(dir, "bank.jsonl"));
 * bank.apply({ resource: "card:1", key: context.actionId, value: 42, token: context.fencingToken });
 * const { applied } = bank.reconcile({ key: actionId, token: context.fencingToken }); // raises the fence
 * bank.entries().filter((entry) => entry.op === "apply" && entry.accepted).length; // effects that happened
 * ```
 */
export interface FencedBackend {
  readonly path: string;
  /** Applies an effect under `key`, or throws TOOL_FENCED (the request is kept, refused). */
  apply(effect: { resource: string; key: string; value: JsonValue; token: number | undefined }): { receipt: string };
  /** Undoes the effect applied under `key` (once), or throws TOOL_FENCED. */
  undo(request: { key: string; token: number | undefined }): { undone: boolean };
  /**
   * Whether an effect under `key` was applied (accepted) before this question; with a token,
   * the question raises the key's fence to it first, so no older owner applies it afterwards.
   */
  reconcile(request: { key: string; token: number | undefined }): { applied: boolean };
  /** Every request with its verdict, in arrival order. */
  entries(): FencedEntry[];
  /** Accepted applies under `key` not undone. */
  applied(key: string): boolean;
}

export function createFencedBackend(path: string): FencedBackend {
  const requests = (): FencedRequest[] =>
    existsSync(path)
      ? readFileSync(path, "utf8")
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line) as FencedRequest)
      : [];
  const send = (request: FencedRequest): FencedEntry => {
    const fd = openSync(path, "a");
    try {
      writeSync(fd, `${JSON.stringify(request)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const verdict = judge(requests()).find((entry) => entry.id === request.id);
    if (verdict === undefined) throw new YokeError("INTERNAL", `fenced backend ${path}: request ${request.id} was not kept`);
    return verdict;
  };
  const refuse = (entry: FencedEntry): never => {
    throw new YokeError("TOOL_FENCED", `refused ${entry.op} of ${entry.key}: fencing token ${entry.token ?? "none"} is older than ${entry.fence}`, {
      details: { key: entry.key, token: entry.token, fence: entry.fence },
    });
  };
  const appliedIn = (entries: readonly FencedEntry[], key: string) => {
    let applied = false;
    for (const entry of entries) {
      if (!entry.accepted || entry.key !== key) continue;
      if (entry.op === "apply") applied = true;
      if (entry.op === "undo") applied = false;
    }
    return applied;
  };
  return {
    path,
    apply({ resource, key, value, token }) {
      const entry = send({ op: "apply", id: randomUUID(), resource, key, value, token: token ?? null });
      if (!entry.accepted) refuse(entry);
      return { receipt: `receipt:${key}` };
    },
    undo({ key, token }) {
      const before = appliedIn(judge(requests()), key);
      const entry = send({ op: "undo", id: randomUUID(), key, token: token ?? null });
      if (!entry.accepted) refuse(entry);
      return { undone: before };
    },
    reconcile({ key, token }) {
      if (token === undefined) return { applied: appliedIn(judge(requests()), key) };
      const fence = send({ op: "fence", id: randomUUID(), key, token });
      const entries = judge(requests());
      const position = entries.findIndex((entry) => entry.id === fence.id);
      return { applied: appliedIn(entries.slice(0, position), key) };
    },
    entries: () => judge(requests()),
    applied: (key) => appliedIn(judge(requests()), key),
  };
}

/** The verdict on every request, from the highest token accepted per key and per resource before it. */
function judge(requests: readonly FencedRequest[]): FencedEntry[] {
  const fences = new Map<string, number>();
  const resourceOf = new Map<string, string>();
  const scopes = (request: FencedRequest): string[] => {
    const resource = request.op === "apply" ? request.resource : resourceOf.get(request.key);
    return resource === undefined ? [`key:${request.key}`] : [`key:${request.key}`, `resource:${resource}`];
  };
  return requests.map((request) => {
    const seen = scopes(request).flatMap((scope) => (fences.has(scope) ? [fences.get(scope)!] : []));
    const fence = seen.length === 0 ? null : Math.max(...seen);
    // A reconciliation is never refused: it only tells the backend which owner is current.
    const accepted = request.op === "fence" || fence === null || (request.token !== null && request.token >= fence);
    if (accepted) {
      if (request.op === "apply") resourceOf.set(request.key, request.resource);
      if (request.token !== null) for (const scope of scopes(request)) fences.set(scope, Math.max(fences.get(scope) ?? request.token, request.token));
    }
    return { ...request, accepted, fence };
  });
}

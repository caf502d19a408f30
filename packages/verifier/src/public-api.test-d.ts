// The public API's types: the runtime's completion check fits fromCheck, vitest's describe/it fit describeVerifier.
import type { ModelResponse, RunState, VerifierV1 } from "@yoke/protocol";
import { describe, expectTypeOf, it, test } from "vitest";
import { z } from "zod";
import type { describeVerifier } from "./contract.js";
import { all, commandVerifier, evidenceVerifier, fromCheck, invariantVerifier, schemaVerifier } from "./index.js";

type CompletionCheck = (context: {
  readonly state: RunState;
  readonly response: ModelResponse;
}) => Promise<{ passed: true; summary?: string } | { passed: false; reason: string; retry?: boolean }>;

test("every factory gives a VerifierV1; a completion check fits fromCheck as it is", () => {
  const check: CompletionCheck = async () => ({ passed: true });
  expectTypeOf(fromCheck("c", check)).toEqualTypeOf<VerifierV1>();
  expectTypeOf(commandVerifier({ id: "c", command: "npm", timeoutMs: 1 })).toEqualTypeOf<VerifierV1>();
  expectTypeOf(invariantVerifier({ id: "i", description: "d", check: (state) => state.turns > 0 })).toEqualTypeOf<VerifierV1>();
  expectTypeOf(evidenceVerifier({ id: "e" })).toEqualTypeOf<VerifierV1>();
  expectTypeOf(schemaVerifier({ id: "s", schema: z.object({ a: z.string() }) })).toEqualTypeOf<VerifierV1>();
  expectTypeOf(all("a", [evidenceVerifier({ id: "e" })])).toEqualTypeOf<VerifierV1>();
  // @ts-expect-error timeoutMs is required
  commandVerifier({ id: "c", command: "npm" });
  // @ts-expect-error an invariant needs a description
  invariantVerifier({ id: "i", check: () => true });
});

test("describeVerifier takes vitest's describe and it", () => {
  const runner: Parameters<typeof describeVerifier>[2] = { describe, it };
  expectTypeOf(runner).not.toBeAny();
});

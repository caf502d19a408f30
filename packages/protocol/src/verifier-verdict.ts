import { z } from "zod/v4";
import { JsonValueSchema, type JsonValue } from "./json-value.js";

/**
 * What one verifier concluded. `details` holds what it saw (a command's exit code and the
 * bounded tail of its output, the citations missing from an answer, the schema's issues);
 * `children` the verdicts of a composition's members, in the order they ran. `retry: false`
 * says another attempt by the model cannot fix it (the run ends or escalates at once);
 * `escalate: true` asks for a person instead of `verification_failed`.
 */
export interface VerifierVerdict {
  readonly verifierId: string;
  readonly kind: string;
  readonly passed: boolean;
  readonly reason?: string;
  readonly details?: JsonValue;
  readonly children?: VerifierVerdict[];
  readonly retry?: boolean;
  readonly escalate?: boolean;
}
export const VerifierVerdictSchema: z.ZodType<VerifierVerdict> = z.lazy(() =>
  z.object({
    verifierId: z.string().min(1),
    kind: z.string().min(1),
    passed: z.boolean(),
    reason: z.string().optional(),
    details: JsonValueSchema.optional(),
    children: z.array(VerifierVerdictSchema).optional(),
    retry: z.boolean().optional(),
    escalate: z.boolean().optional(),
  }),
) as z.ZodType<VerifierVerdict>;

import { z } from "zod/v4";
import { DataClassificationSchema } from "./tool-contract.js";

/**
 * What a proposed call carries: the data it sends or writes (its tool's declared `payloads`),
 * summarised from the provenance of those values.
 * - `classification`: the highest data classification among the payload values' sources
 *   (`public` < `internal` < `confidential` < `restricted`), `internal` when no source holds one;
 *   personal data is `confidential`, secrets are `restricted`;
 * - `fromToolOutput`: a payload value was found in a tool's output (a value a principal of the
 *   run gave, the user's own words, counts as theirs even when a tool output also holds it);
 * - `fromUntrusted`: a payload value was found only in third-party content (origin `untrusted_only`);
 * - `outward`: what the call carries leaves the account (`ToolPolicyFacts.outward`, default true).
 *
 * A value the model rewrote (a summary, a translation) is not found verbatim and adds nothing:
 * influence is what covers a call a model composed after reading untrusted content.
 */
export const CarriesSchema = z.object({
  classification: DataClassificationSchema,
  fromToolOutput: z.boolean(),
  fromUntrusted: z.boolean(),
  outward: z.boolean(),
});
export type Carries = z.infer<typeof CarriesSchema>;

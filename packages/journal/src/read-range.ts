import { YokeError } from "@yoke/protocol";

/**
 * A read option (`fromSeq`, `toSeq`) as a sequence number: `fallback` when undefined, else a
 * non-negative safe integer or CONFIG_INVALID naming the option and its value. Shared by every
 * store, so a bad range is refused alike everywhere.
 */
export function sequenceOption(value: number | undefined, fallback: number, name: "fromSeq" | "toSeq"): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new YokeError("CONFIG_INVALID", `read option ${name} must be a non-negative integer`, { details: { [name]: value } });
  }
  return value;
}

import { describe, expect, it } from "vitest";
import { OTEL_INSTRUMENTATION_NAME } from "./index.js";

describe("@yoke/otel", () => {
  it("names its instrumentation scope", () => {
    expect(OTEL_INSTRUMENTATION_NAME).toBe("@yoke/otel");
  });
});

import { describe, expect, it } from "vitest";
import { outcomeText } from "./outcome-line.js";

describe("outcomeText", () => {
  it("names the dimension, the limit, the reservation, what it asked and what was left when a budget ended the run", () => {
    expect(
      outcomeText({ status: "budget_exhausted", budget: "tokens", limit: 20_000, reservationId: "reservation_1", requested: 33_117, remaining: 20_000 }),
    ).toBe("budget_exhausted: tokens limit 20000, reservation reservation_1 asked 33117 with 20000 left");
  });

  it("says what it can for the turn limit and for journals written before the ask was journaled", () => {
    expect(outcomeText({ status: "budget_exhausted", budget: "turns", limit: 8 })).toBe("budget_exhausted: turns limit 8");
    expect(outcomeText({ status: "budget_exhausted", budget: "spend", limit: 500, reservationId: "reservation_2" })).toBe(
      "budget_exhausted: spend limit 500 (reservation reservation_2)",
    );
  });

  it("keeps a reason, clipped, and a bare status", () => {
    expect(outcomeText({ status: "refused", reason: "no" }, (text) => `${text}!`)).toBe("refused: no!");
    expect(outcomeText({ status: "completed" })).toBe("completed");
  });
});

// The canonical-values suite (issue 33, item 7): every engine behind PolicyEngineV1 runs it,
// as it runs the engine suite. Rules match what a value means, not its bytes: a deny holds
// against case, padding, invisible characters, fullwidth forms and confusable letters; a
// granting rule never matches a mixed-script or undecidable value in a field it constrains.
//   describeCanonicalValues("my engine", (document) => createMyEngine(document));
import type { PolicyTuple } from "@yoke/protocol";
import { describe, expect, test } from "vitest";
import type { PolicyRule } from "../index.js";
import type { PolicyEngineFactory } from "./engine-suite.js";
import { baseMatch, baseTuple, documentOf } from "./tuples.js";

// The README's document: payments to any IBAN, except French ones.
const readme: PolicyRule[] = [
  { id: "pay", effect: "allow", match: { ...baseMatch, destination: ["iban:*"] } },
  { id: "no-transfers-abroad", effect: "deny", match: { destination: ["iban:FR*"] } },
];
const to = (destination: string): PolicyTuple => ({ ...baseTuple, destination });

const FRENCH = "FR7630006000011234567890189";

export function describeCanonicalValues(name: string, factory: PolicyEngineFactory): void {
  const engine = factory(documentOf(readme));

  describe(`canonical values: ${name}: rules match what a value means, not its bytes (issue 33, item 7)`, () => {
    test.each([
      ["lower case", `iban:fr${FRENCH.slice(2)}`],
      ["mixed case", `iban:Fr${FRENCH.slice(2)}`],
      ["a leading space", ` iban:${FRENCH}`],
      ["a trailing tab", `iban:${FRENCH}\t`],
      ["a zero-width space", `iban:F\u200bR${FRENCH.slice(2)}`],
      ["a soft hyphen", `iban:\u00adFR${FRENCH.slice(2)}`],
      ["a byte-order mark", `\ufeffiban:${FRENCH}`],
      ["fullwidth letters", `iban:\uff26\uff32${FRENCH.slice(2)}`],
      ["a fullwidth colon and scheme", `\uff49\uff42\uff41\uff4e\uff1a${FRENCH}`],
      ["a Cyrillic i in the scheme", `\u0456ban:${FRENCH}`],
      ["a Cyrillic letter in the number", `iban:FR76\u0405${FRENCH.slice(4)}`],
      ["a Greek digamma for the F", `iban:\u03dcR${FRENCH.slice(2)}`],
      ["an upper-case scheme", `IBAN:${FRENCH}`],
      ["spaces inside the IBAN (its printed form)", "iban:FR76 3000 6000 0112 3456 7890 189"],
      ["a combining accent", `iban:FR\u0301${FRENCH.slice(2)}`],
    ])("the deny iban:FR* holds against %s", (_, destination) => {
      expect(engine.decide(to(destination))).toMatchObject({ effect: "deny", ruleId: "no-transfers-abroad" });
    });

    test("a value the deny matched before still matches it", () => {
      expect(engine.decide(to(`iban:${FRENCH}`)).ruleId).toBe("no-transfers-abroad");
    });

    test("an allowed IBAN still passes in its canonical spellings", () => {
      for (const destination of [
        "iban:DE89370400440532013000",
        "iban:de89370400440532013000",
        " iban:DE89 3704 0044 0532 0130 00 ",
        "iban:\uff24\uff25\u200b89370400440532013000",
      ]) {
        expect({ destination, ...engine.decide(to(destination)) }).toMatchObject({ destination, effect: "allow", ruleId: "pay" });
      }
    });

    test("a mixed-script value fails every granting rule that constrains its field, a glob included", () => {
      const allowGerman = factory(documentOf([{ id: "pay-de", effect: "allow", match: { ...baseMatch, destination: ["iban:DE*"] } }]));
      // Cyrillic "Е" (U+0415) for the Latin E of DE.
      expect(allowGerman.decide(to("iban:D\u041589370400440532013000"))).toMatchObject({ effect: "deny", ruleId: "default-deny" });
      expect(allowGerman.decide(to("iban:DE89370400440532013000"))).toMatchObject({ effect: "allow" });
      // A rule that does not constrain the field ("*") is not affected.
      const anyDestination = factory(documentOf([{ id: "any", effect: "allow", match: { ...baseMatch, destination: "*" } }]));
      expect(anyDestination.decide(to("iban:D\u041589370400440532013000")).effect).toBe("allow");
    });

    test("e-mail domains and host names fold case and trailing dots; e-mail local parts do not", () => {
      const rules: PolicyRule[] = [
        { id: "mail-acme", effect: "allow", match: { ...baseMatch, destination: ["email:*@acme.example"] } },
        { id: "no-evil-mail", effect: "deny", match: { destination: ["email:*@evil.example"] } },
        { id: "no-evil-host", effect: "deny", match: { destination: ["host:evil.example"] } },
      ];
      const mail = factory(documentOf(rules));
      expect(mail.decide(to("email:Bob@ACME.Example")).ruleId).toBe("mail-acme");
      expect(mail.decide(to("email:bob@EVIL.example.")).ruleId).toBe("no-evil-mail");
      expect(mail.decide(to("host:EVIL.EXAMPLE.")).ruleId).toBe("no-evil-host");
      expect(mail.decide(to("host:\uff45vil.example")).ruleId).toBe("no-evil-host");
      const local = factory(documentOf([{ id: "bob-only", effect: "allow", match: { ...baseMatch, destination: ["email:bob@acme.example"] } }]));
      expect(local.decide(to("email:BOB@acme.example")).ruleId).toBe("default-deny");
    });

    test("an allow rule on a resource does not cover a path that climbs out of it, and a path that cannot be resolved fails it", () => {
      const files = factory(documentOf([{ id: "reports", effect: "allow", match: { ...baseMatch, resource: ["file:/reports/*"] } }]));
      expect(files.decide({ ...baseTuple, resource: "file:/reports/q3.pdf" }).ruleId).toBe("reports");
      expect(files.decide({ ...baseTuple, resource: "file:/reports/../secrets/prod.env" }).ruleId).toBe("default-deny");
      expect(files.decide({ ...baseTuple, resource: "file:/reports/%2e%2e/secrets/prod.env" }).ruleId).toBe("default-deny");
      expect(files.decide({ ...baseTuple, resource: "file:/reports/%zz" }).ruleId).toBe("default-deny");
    });

    test("rule patterns are canonicalized too: a rule written iban:fr* is the rule iban:FR*", () => {
      const lower = factory(documentOf([readme[0]!, { id: "lower", effect: "deny", match: { destination: ["iban:fr*"] } }]));
      expect(lower.decide(to(`iban:${FRENCH}`)).ruleId).toBe("lower");
    });
  });

  describe(`canonical values: ${name}: resource patterns are resolved like resource values`, () => {
    test("a literal or trailing-star resource pattern written with dot segments, escapes or an upper-case host matches the values it means", () => {
      const rules: PolicyRule[] = [
        { id: "page", effect: "allow", match: { ...baseMatch, resource: ["url:https://WWW.Example.com/a/./b%20c"] } },
        { id: "reports", effect: "allow", match: { ...baseMatch, resource: ["file:/reports//2026/../*"] } },
      ];
      const engine = factory(documentOf(rules));
      expect(engine.decide({ ...baseTuple, resource: "url:https://www.example.com/a/b c" }).ruleId).toBe("page");
      expect(engine.decide({ ...baseTuple, resource: "url:https://www.example.com./a/b%20c" }).ruleId).toBe("page");
      expect(engine.decide({ ...baseTuple, resource: "file:/reports/q3.pdf" }).ruleId).toBe("reports");
      expect(engine.decide({ ...baseTuple, resource: "file:/reports/../q3.pdf" }).ruleId).toBe("default-deny");
    });
  });

  // No wall-clock bound here (the machines are shared): the test's own timeout is the backstop
  // against a super-linear canonicalization, and speed is measured by `pnpm bench`.
  describe(`canonical values: ${name}: large hostile values`, () => {
    test("a 200 kB destination of confusable, mixed-script, escaped text is decided, and not allowed", () => {
      for (const body of ["Ж".repeat(200_000), "aЖ/..%2e".repeat(25_000), `F\u200bR${"\u0301".repeat(200_000)}`]) {
        expect(engine.decide(to(`iban:${body}`)).effect).not.toBe("allow");
      }
    });
  });
}

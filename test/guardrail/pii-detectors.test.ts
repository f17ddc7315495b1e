import { describe, expect, it } from "vitest";
import {
  cardDetector,
  emailDetector,
  findAll,
  ibanDetector,
  ibanValid,
  luhnValid,
  PII_DETECTORS,
  phoneDetector,
  piiGuardrail,
  redact,
  regexDetector,
  SECRET_DETECTORS,
} from "../../src/guardrail/index.js";

const found = (detector: { find(text: string): Array<{ start: number; end: number }> }, text: string) =>
  detector.find(text).map((f) => text.slice(f.start, f.end));
const check = (text: string) => ({
  stage: "input" as const,
  text,
  sessionId: "s",
  replyId: "r",
  signal: new AbortController().signal,
});

describe("emails", () => {
  it("finds addresses in prose, brackets, mailto links and after punctuation", () => {
    const text =
      "Write to jane.doe+billing@mail.example.co.uk, or <ops@corp.io>; mailto:x_y%z@sub-domain.example.org. (bob@ex.com)";
    expect(found(emailDetector, text)).toEqual([
      "jane.doe+billing@mail.example.co.uk",
      "ops@corp.io",
      "x_y%z@sub-domain.example.org",
      "bob@ex.com",
    ]);
  });

  it("false positives: a decorator, a handle, an npm scope, a version pin, an address without a top-level part", () => {
    const text = "@Component() at @jane, npm i @scope/pkg@1.2.3, user@localhost, name@host.1";
    expect(found(emailDetector, text)).toEqual([]);
  });
});

describe("phone numbers", () => {
  it("finds international and national formats", () => {
    const text =
      "Call +1 (415) 555-2671, +44 20 7946 0958, 415.555.2671 or (030) 1234 5678; Munich +49 89 636 48018.";
    expect(found(phoneDetector, text)).toEqual([
      "+1 (415) 555-2671",
      "+44 20 7946 0958",
      "415.555.2671",
      "(030) 1234 5678",
      "+49 89 636 48018",
    ]);
  });

  it("false positives: dates, times, versions, IP addresses, amounts, ids and bare digit runs", () => {
    const text =
      "On 2024-01-15 10:30:00 v1.22.3 ran on 192.168.100.200 for $1,234,567.89; order 20240115103000, ISBN 978-3-16-148410-0, sha 4f2a9c1.";
    expect(found(phoneDetector, text)).toEqual([]);
  });
});

describe("card numbers", () => {
  it("finds Visa, Mastercard, Amex and Discover test numbers, grouped or not", () => {
    const text =
      "Visa 4111 1111 1111 1111, MC 5555-5555-5555-4444, Amex 378282246310005, Discover 6011111111111117.";
    expect(found(cardDetector, text)).toEqual([
      "4111 1111 1111 1111",
      "5555-5555-5555-4444",
      "378282246310005",
      "6011111111111117",
    ]);
  });

  it("false positives: a number that fails Luhn, one with no network's prefix, timestamps and phone numbers", () => {
    // 4111 1111 1111 1112 fails Luhn; 9999999999999995 passes Luhn but no network starts with 9.
    const text = "4111 1111 1111 1112 and 9999999999999995, at 1700000000123, call +1 (415) 555-2671";
    expect(luhnValid("9999999999999995")).toBe(true);
    expect(found(cardDetector, text)).toEqual([]);
  });
});

describe("IBANs", () => {
  it("finds valid IBANs, plain and grouped", () => {
    const text =
      "Pay DE89 3704 0044 0532 0130 00 or GB82WEST12345698765432, ref FR1420041010050500013M02606.";
    expect(found(ibanDetector, text)).toEqual([
      "DE89 3704 0044 0532 0130 00",
      "GB82WEST12345698765432",
      "FR1420041010050500013M02606",
    ]);
  });

  it("false positives: a wrong check digit, a wrong length, an unknown country, an ordinary code", () => {
    expect(ibanValid("DE89370400440532013001")).toBe(false);
    const text =
      "DE88 3704 0044 0532 0130 00, GB82WEST1234569876543, ZZ12ABCD12345678, order AB12CDEF3456GHIJ";
    expect(found(ibanDetector, text)).toEqual([]);
  });
});

describe("the PII guardrail", () => {
  it("redacts every kind it finds and leaves the rest of the text as it was", async () => {
    const guardrail = piiGuardrail();
    const text =
      "I'm jane@example.com, card 4111-1111-1111-1111, IBAN GB82WEST12345698765432, key AKIAIOSFODNN7EXAMPLE.";
    expect(await guardrail.check(check(text))).toMatchObject({
      action: "rewrite",
      text: "I'm [REDACTED:email], card [REDACTED:card_number], IBAN [REDACTED:iban], key [REDACTED:aws_access_key_id].",
    });
  });

  it("passes ordinary text untouched (a control)", async () => {
    const text =
      "The meeting moved to 2024-03-05 at 14:00 in room 4.12; budget is 12,500 EUR, ticket #48213, see v2.3.1 notes.";
    expect(await piiGuardrail().check(check(text))).toEqual({ action: "pass" });
  });

  it("trips instead, naming the kinds, with action: trip", async () => {
    const verdict = await piiGuardrail({ action: "trip" }).check(check("mail me: a@b.io or +1 415 555 2671"));
    expect(verdict).toMatchObject({ action: "trip", kind: "pii", reason: "found email, phone" });
  });

  it("is extensible: a detector of your own joins the built-in ones", async () => {
    const employeeId = regexDetector("employee_id", /\bEMP-\d{6}\b/g, { prefilter: ["EMP-"] });
    const guardrail = piiGuardrail({ detectors: [...PII_DETECTORS, employeeId] });
    expect(await guardrail.check(check("EMP-123456 is jane@example.com"))).toMatchObject({
      text: "[REDACTED:employee_id] is [REDACTED:email]",
    });
  });

  it("overlapping findings are one redaction", () => {
    const text = "password=ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    const findings = findAll(SECRET_DETECTORS, text);
    expect(findings).toHaveLength(1);
    expect(redact(text, findings)).toBe("password=[REDACTED:github_token]");
  });
});

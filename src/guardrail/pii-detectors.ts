import type { GuardrailFinding } from "../agent/index.js";
import { cardNetworkValid, ibanValid, luhnValid } from "./checksums.js";
import { type Detector, regexDetector } from "./detector.js";

/** Character classes by code (ASCII): 1 = may be in a domain, 2 = may be in a local part too. */
const EMAIL_CHARS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/[A-Za-z0-9.-]/.test(ch)) EMAIL_CHARS[c] = 3;
  else if (/[_%+]/.test(ch)) EMAIL_CHARS[c] = 2;
}
const isLocal = (code: number) => code < 128 && ((EMAIL_CHARS[code] as number) & 2) !== 0;
const isDomain = (code: number) => code < 128 && ((EMAIL_CHARS[code] as number) & 1) !== 0;

/**
 * Email addresses: found from each `@` outwards (no regex pass over text without one), a local part,
 * a domain with a dot and a top-level part of two letters or more.
 */
export const emailDetector: Detector = {
  kind: "email",
  find(text) {
    const found: GuardrailFinding[] = [];
    let from = 0;
    for (let at = text.indexOf("@"); at !== -1; at = text.indexOf("@", from)) {
      from = at + 1;
      let start = at;
      while (start > 0 && isLocal(text.charCodeAt(start - 1))) start -= 1;
      let end = at + 1;
      while (end < text.length && isDomain(text.charCodeAt(end))) end += 1;
      while (end > at + 1 && (text[end - 1] === "." || text[end - 1] === "-")) end -= 1;
      while (start < at && text[start] === ".") start += 1;
      if (start === at) continue;
      const domain = text.slice(at + 1, end);
      const dot = domain.lastIndexOf(".");
      if (dot <= 0 || !/^[A-Za-z]{2,}$/.test(domain.slice(dot + 1))) continue;
      found.push({ kind: "email", start, end });
      from = end;
    }
    return found;
  },
};

const digitCount = (value: string) => value.replace(/\D/g, "").length;

/** A run of number-like characters (digits, space, ( ) + - .) with at least ten of them. */
const NUMBER_RUN = /[+(]?\d[\d ()+.-]{9,}/g;

/**
 * A detector that runs `pattern` only inside runs of number-like characters holding at least
 * `minDigits` digits, so prose costs one simple scan instead of a regex try at every digit.
 */
function numberRunDetector(
  kind: string,
  pattern: RegExp,
  minDigits: number,
  accept: (match: string) => boolean,
): Detector {
  return {
    kind,
    find(text) {
      const found: GuardrailFinding[] = [];
      const runs = new RegExp(NUMBER_RUN.source, "g");
      for (let run = runs.exec(text); run !== null; run = runs.exec(text)) {
        if (digitCount(run[0]) < minDigits) continue;
        // One character to each side, so the pattern's boundaries see what is really there.
        const from = Math.max(0, run.index - 1);
        const window = text.slice(from, run.index + run[0].length + 1);
        const re = new RegExp(pattern.source, pattern.flags);
        for (let m = re.exec(window); m !== null; m = re.exec(window)) {
          if (accept(m[0])) found.push({ kind, start: from + m.index, end: from + m.index + m[0].length });
        }
      }
      return found;
    },
  };
}

/**
 * Phone numbers written as phone numbers: an international `+` prefix or area-code grouping with
 * separators ("(415) 555-2671", "+44 20 7946 0958", "415.555.2671"), 10 to 15 digits. A bare run of
 * digits, a date or a version number is not one.
 */
export const phoneDetector: Detector = numberRunDetector(
  "phone",
  /(?<![\w+.-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{2,6}[ .-]\d{3,5}(?:[ .-]\d{2,5})?(?![\w-]|\.\d)/g,
  10,
  (match) => {
    const digits = digitCount(match);
    // A dotted quad (an IP address) is not a phone number.
    return digits >= 10 && digits <= 15 && !/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(match);
  },
);

/** Card numbers: 13 to 19 digits (spaces or dashes between groups) that pass Luhn and a network's prefix and length. */
export const cardDetector: Detector = numberRunDetector(
  "card_number",
  /(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])/g,
  13,
  (match) => {
    const digits = match.replace(/[ -]/g, "");
    return cardNetworkValid(digits) && luhnValid(digits);
  },
);

/** IBANs, printed plain or in groups of four: a known country's length and the mod-97 check. */
export const ibanDetector: Detector = regexDetector(
  "iban",
  /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])/g,
  { accept: ibanValid },
);

/** The personal data the PII guardrail looks for by default. */
export const PII_DETECTORS: readonly Detector[] = [emailDetector, phoneDetector, cardDetector, ibanDetector];

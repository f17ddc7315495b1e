/** The Luhn checksum of a card number's digits (separators ignored). */
export function luhnValid(value: string): boolean {
  let sum = 0;
  let double = false;
  let digits = 0;
  for (let i = value.length - 1; i >= 0; i--) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) continue;
    let digit = code - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
    double = !double;
    digits += 1;
  }
  return digits > 0 && sum % 10 === 0;
}

/**
 * Whether the digits start like a card a network issues (Visa, Mastercard, Amex, Discover, JCB,
 * Diners, UnionPay) and have that network's length: with Luhn, a random number rarely passes.
 */
export function cardNetworkValid(digits: string): boolean {
  const n = digits.length;
  const two = Number(digits.slice(0, 2));
  const three = Number(digits.slice(0, 3));
  const four = Number(digits.slice(0, 4));
  if (digits[0] === "4") return n === 13 || n === 16 || n === 19;
  if ((two >= 51 && two <= 55) || (four >= 2221 && four <= 2720)) return n === 16;
  if (two === 34 || two === 37) return n === 15;
  if (four === 6011 || two === 65 || (three >= 644 && three <= 649)) return n >= 16 && n <= 19;
  if (two === 35) return n >= 16 && n <= 19;
  if (two === 36 || two === 38 || (three >= 300 && three <= 305)) return n >= 14 && n <= 19;
  if (two === 62) return n >= 16 && n <= 19;
  return false;
}

/** IBAN lengths of the countries that use one (ISO 13616 registry). */
const IBAN_LENGTHS: Readonly<Record<string, number>> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  TN: 24,
  TR: 26,
  UA: 29,
  VG: 24,
  XK: 20,
};

/** An IBAN (spaces ignored): a known country, its length, and the ISO 7064 mod-97 check equal to 1. */
export function ibanValid(value: string): boolean {
  const iban = value.replace(/ /g, "").toUpperCase();
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  const moved = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (let i = 0; i < moved.length; i++) {
    const code = moved.charCodeAt(i);
    const value = code >= 65 ? code - 55 : code - 48;
    if (value < 0 || value > 35) return false;
    remainder = (value > 9 ? remainder * 100 + value : remainder * 10 + value) % 97;
  }
  return remainder === 1;
}

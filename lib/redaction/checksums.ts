// Checksums that separate real card numbers and IBANs from other digit runs.

/** Luhn check over a string of ASCII digits. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let k = digits.length - 1; k >= 0; k--) {
    let d = digits.charCodeAt(k) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return digits.length > 0 && sum % 10 === 0;
}

/**
 * ISO 13616 check: country code (2 letters), check digits (2 digits) and an
 * alphanumeric BBAN, no spaces, upper case. The first four characters move
 * to the end, letters become 10..35, and the number must be 1 mod 97.
 * Check digits 00, 01 and 99 can never be produced, so they are rejected.
 */
export function ibanValid(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const check = Number(iban.slice(2, 4));
  if (check < 2 || check > 98) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rest = 0;
  for (let k = 0; k < rearranged.length; k++) {
    const code = rearranged.charCodeAt(k);
    rest = code <= 57 ? (rest * 10 + (code - 48)) % 97 : (rest * 100 + (code - 55)) % 97;
  }
  return rest === 1;
}

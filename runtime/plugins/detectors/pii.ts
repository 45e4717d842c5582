/**
 * The categories pii_filter knows, each with the validation that keeps
 * ordinary numbers out: Luhn for card numbers (and an issuer's first digit),
 * the mod-97 check for IBANs, a digit count for phone numbers. Cards and
 * IBANs are looked for first, so their digits are never taken for a phone.
 */
import type { PiiCategory } from '../../../schemas/plugins.js';
import { ibanValid, luhnValid } from './checksums.js';
import { redactText, type Detector, type Tally } from './text-detector.js';

const digitCount = (text: string): number => text.replace(/\D/g, '').length;

const DETECTORS: Record<PiiCategory, Detector> = {
  credit_card: {
    kind: 'credit_card',
    // Unbroken, or in the groups cards are printed in (4-4-4-4, 4-6-5): a number that follows is not taken in.
    pattern: /\b(?:[2-6]\d{12,18}|[2-6]\d{3}(?:([ -])\d{4})(?:\1\d{4}){2}|3\d{3}([ -])\d{6}\2\d{5})\b/g,
    accept: (card) => luhnValid(card) && !/^(\d)\1+$/.test(card.replace(/\D/g, '')),
  },
  // Unbroken, or in groups of four (the last one shorter).
  iban: { kind: 'iban', pattern: /\b[A-Z]{2}\d{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?)\b/g, accept: ibanValid },
  // Its pattern tries every word of a text: only a text with an `@` is scanned.
  email: { kind: 'email', needs: '@', pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/g },
  phone: {
    kind: 'phone',
    // International (+, 8 to 15 digits) or North American (3-3-4) with separators.
    pattern: /(?<![\w+])(?:\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}|\(\d{3}\)[ .-]?\d{3}[ .-]\d{4}|\d{3}[ .-]\d{3}[ .-]\d{4})(?![\w])/g,
    accept: (phone) => (phone.startsWith('+') ? digitCount(phone) >= 8 && digitCount(phone) <= 15 : digitCount(phone) === 10),
  },
};

const ORDER: readonly PiiCategory[] = ['credit_card', 'iban', 'email', 'phone'];

export function piiDetectors(categories: readonly PiiCategory[]): Detector[] {
  return ORDER.filter((c) => categories.includes(c)).map((c) => DETECTORS[c]);
}

/** Texts shorter than the shortest match (`a@b.cd`) need no scan. */
const MIN_PII_LENGTH = 6;

export function redactPii(text: string, detectors: readonly Detector[], tally: Tally): string {
  return text.length < MIN_PII_LENGTH ? text : redactText(text, detectors, tally);
}

/**
 * Reading and writing element values by data type, written for speed (character codes, no
 * regex). Numbers: N types become JSON numbers with their implied decimals applied, R becomes a
 * number. Dates: eight-digit dates become "YYYY-MM-DD"; six-digit dates stay as sent. Times stay
 * as sent. Anything else stays a string.
 */

const D0 = 48;
const D9 = 57;

function allDigits(s: string, from: number, to: number): boolean {
  if (from >= to) return false;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < D0 || c > D9) return false;
  }
  return true;
}

const num2 = (s: string, at: number): number => (s.charCodeAt(at) - D0) * 10 + (s.charCodeAt(at + 1) - D0);

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Earliest four-digit year read as a date; "11111111" (year 1111) is not a readable date. */
export const MIN_YEAR = 1900;

/**
 * A date element as its translation: "CCYYMMDD" → "CCYY-MM-DD", a valid "YYMMDD" as sent;
 * null when it cannot be read as a date (month 13, day 32, year before 1900, wrong length).
 */
export function readDate(raw: string): string | null {
  const n = raw.length;
  if (n === 8) {
    if (!allDigits(raw, 0, 8)) return null;
    const year = num2(raw, 0) * 100 + num2(raw, 2);
    const month = num2(raw, 4);
    const day = num2(raw, 6);
    if (year < MIN_YEAR || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
    return `${raw.slice(0, 4)}-${raw.slice(4, 6)}-${raw.slice(6)}`;
  }
  if (n === 6) {
    if (!allDigits(raw, 0, 6)) return null;
    const month = num2(raw, 2);
    const day = num2(raw, 4);
    if (month < 1 || month > 12 || day < 1 || day > daysIn(2000 + num2(raw, 0), month)) return null;
    return raw;
  }
  return null;
}

/** True when a time element reads as HHMM, HHMMSS or HHMMSSd..d (24-hour clock). */
export function isTime(raw: string): boolean {
  const n = raw.length;
  if (n < 4 || n > 8 || n === 5 || !allDigits(raw, 0, n)) return false;
  if (num2(raw, 0) > 23 || num2(raw, 2) > 59) return false;
  return n < 6 || num2(raw, 4) <= 59;
}

/** An N-type value with its implied decimals, or null when it is not a signed digit string. */
export function readN(raw: string, decimals: number): number | null {
  const start = raw.charCodeAt(0) === 45 ? 1 : 0;
  if (!allDigits(raw, start, raw.length)) return null;
  if (decimals === 0) return Number(raw);
  const digits = raw.length - start;
  const body = digits > decimals ? raw.slice(start, raw.length - decimals) : '0';
  const frac = digits > decimals ? raw.slice(raw.length - decimals) : raw.slice(start).padStart(decimals, '0');
  const v = Number(`${body}.${frac}`);
  return start === 1 ? -v : v;
}

/** An R-type value, or null when it is not a signed decimal with at most one point. */
export function readR(raw: string): number | null {
  const n = raw.length;
  let i = raw.charCodeAt(0) === 45 ? 1 : 0;
  let digits = 0;
  let dot = false;
  for (; i < n; i++) {
    const c = raw.charCodeAt(i);
    if (c >= D0 && c <= D9) digits++;
    else if (c === 46 && !dot) dot = true;
    else return null;
  }
  return digits === 0 ? null : Number(raw);
}

/** Digits counted for the length of a numeric value (sign and decimal point excluded). */
export function numericLength(raw: string): number {
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c >= D0 && c <= D9) n++;
  }
  return n;
}

/** Writes an N-type number: implied decimals, no sign for zero, zero-padded to `min` digits. */
export function writeN(value: number, decimals: number, min: number): string {
  const neg = value < 0;
  let s = Math.abs(value).toFixed(decimals).replace('.', '');
  let i = 0;
  while (i < s.length - 1 && s.charCodeAt(i) === D0) i++;
  s = s.slice(i);
  if (s.length < min) s = s.padStart(min, '0');
  return neg && s !== '0'.repeat(s.length) ? `-${s}` : s;
}

/** Writes an R-type number in its shortest decimal form (never an exponent). */
export function writeR(value: number, min: number): string {
  let s = String(value);
  if (s.includes('e')) s = value.toFixed(20).replace(/\.?0+$/, '');
  if (min > 1) {
    const len = numericLength(s);
    if (len < min) {
      const neg = s.startsWith('-');
      s = (neg ? '-' : '') + '0'.repeat(min - len) + (neg ? s.slice(1) : s);
    }
  }
  return s;
}

/** Writes a date: "YYYY-MM-DD" becomes "YYYYMMDD" (or "YYMMDD" for a six-long element); others as given. */
export function writeDate(value: string, max: number): string {
  if (value.length === 10 && value.charCodeAt(4) === 45 && value.charCodeAt(7) === 45) {
    const d = value.slice(0, 4) + value.slice(5, 7) + value.slice(8);
    return max === 6 ? d.slice(2) : d;
  }
  return value;
}

/**
 * Element values by data type: hand-written checks of dates, times and digit counts over
 * character codes of the set's text (no regex, no intermediate strings), used by the translation
 * pass (which writes numbers and dates into JSON itself, engine.ts), and the writing of numbers
 * and dates back into X12 (canonical forms: docs/x12-implementations.md, "JSON shape of a translation").
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
 * True when `t[a, b)` reads as a date: "CCYYMMDD" (year 1900 on) or "YYMMDD"; false for month 13,
 * day 32, a year before 1900 or another length.
 */
export function isDateAt(t: string, a: number, b: number): boolean {
  const n = b - a;
  if (n === 8) {
    if (!allDigits(t, a, b)) return false;
    const year = num2(t, a) * 100 + num2(t, a + 2);
    const month = num2(t, a + 4);
    const day = num2(t, a + 6);
    return year >= MIN_YEAR && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
  }
  if (n === 6) {
    if (!allDigits(t, a, b)) return false;
    const month = num2(t, a + 2);
    const day = num2(t, a + 4);
    return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(2000 + num2(t, a), month);
  }
  return false;
}

/** True when `t[a, b)` reads as HHMM, HHMMSS or HHMMSSd..d (24-hour clock). */
export function isTimeAt(t: string, a: number, b: number): boolean {
  const n = b - a;
  if (n < 4 || n > 8 || n === 5 || !allDigits(t, a, b)) return false;
  if (num2(t, a) > 23 || num2(t, a + 2) > 59) return false;
  return n < 6 || num2(t, a + 4) <= 59;
}

/** Digits in `t[a, b)`: the length of a numeric value (sign and decimal point excluded). */
export function digitsAt(t: string, a: number, b: number): number {
  let n = 0;
  for (let i = a; i < b; i++) {
    const c = t.charCodeAt(i);
    if (c >= D0 && c <= D9) n++;
  }
  return n;
}

export const numericLength = (raw: string): number => digitsAt(raw, 0, raw.length);

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

/**
 * Reading and writing element values by data type, written for speed: hand-written parsers over
 * character codes of the set's text (no regex, no intermediate strings), producing JSON text
 * directly. Numbers: N types become JSON numbers with their implied decimals applied, R becomes a
 * number; both in canonical form (no leading zeros, no trailing fraction zeros: R "4.50" is 4.5).
 * Dates: eight-digit dates become "YYYY-MM-DD"; six-digit dates stay as sent. Times stay as sent.
 * Anything else stays a string.
 */

const D0 = 48;
const D9 = 57;
const MINUS = 45;
const DOT = 46;

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

/** JSON text of a readable date `t[a, b)` (see `isDateAt`): "CCYY-MM-DD", or a six-digit date as sent. */
export function dateJson(t: string, a: number, b: number): string {
  if (b - a === 8) return '"' + t.slice(a, a + 4) + '-' + t.slice(a + 4, a + 6) + '-' + t.slice(a + 6, b) + '"';
  return '"' + t.slice(a, b) + '"';
}

/** A date element as its translation ("CCYYMMDD" → "CCYY-MM-DD"), or null when unreadable. */
export function readDate(raw: string): string | null {
  return isDateAt(raw, 0, raw.length) ? (JSON.parse(dateJson(raw, 0, raw.length)) as string) : null;
}

/** True when `t[a, b)` reads as HHMM, HHMMSS or HHMMSSd..d (24-hour clock). */
export function isTimeAt(t: string, a: number, b: number): boolean {
  const n = b - a;
  if (n < 4 || n > 8 || n === 5 || !allDigits(t, a, b)) return false;
  if (num2(t, a) > 23 || num2(t, a + 2) > 59) return false;
  return n < 6 || num2(t, a + 4) <= 59;
}

export const isTime = (raw: string): boolean => isTimeAt(raw, 0, raw.length);

/**
 * Canonical JSON number text of digits `t[from, to)` with `decimals` implied decimals and an
 * optional sign: leading zeros and trailing fraction zeros dropped, "0" for any zero.
 */
function canonical(t: string, neg: boolean, intFrom: number, intTo: number, fracFrom: number, fracTo: number, padFrac: number): string {
  while (intFrom < intTo && t.charCodeAt(intFrom) === D0) intFrom++;
  while (fracTo > fracFrom && t.charCodeAt(fracTo - 1) === D0) fracTo--;
  const hasFrac = fracTo > fracFrom;
  if (intFrom === intTo && !hasFrac) return '0';
  let s = neg ? '-' : '';
  s += intFrom < intTo ? t.slice(intFrom, intTo) : '0';
  if (hasFrac) s += padFrac > 0 ? '.' + '0'.repeat(padFrac) + t.slice(fracFrom, fracTo) : '.' + t.slice(fracFrom, fracTo);
  return s;
}

/**
 * JSON number text of an N-type value `t[a, b)` with its implied decimals ("12345" as N2 →
 * "123.45"), or null when it is not an optionally signed digit string.
 */
export function nJson(t: string, a: number, b: number, decimals: number): string | null {
  const neg = t.charCodeAt(a) === MINUS;
  const start = neg ? a + 1 : a;
  if (!allDigits(t, start, b)) return null;
  if (decimals === 0) return canonical(t, neg, start, b, b, b, 0);
  const split = b - decimals;
  if (split >= start) return canonical(t, neg, start, split, split, b, 0);
  // fewer digits than decimals: all of them are fraction digits, zero-padded on the left
  return canonical(t, neg, start, start, start, b, split < start ? start - split : 0);
}

/**
 * JSON number text of an R-type value `t[a, b)` (optional sign, digits, at most one decimal
 * point, at least one digit), or null when it is not one.
 */
export function rJson(t: string, a: number, b: number): string | null {
  const neg = t.charCodeAt(a) === MINUS;
  const start = neg ? a + 1 : a;
  let dot = -1;
  let digits = 0;
  for (let i = start; i < b; i++) {
    const c = t.charCodeAt(i);
    if (c >= D0 && c <= D9) digits++;
    else if (c === DOT && dot < 0) dot = i;
    else return null;
  }
  if (digits === 0) return null;
  if (dot < 0) return canonical(t, neg, start, b, b, b, 0);
  return canonical(t, neg, start, dot, dot + 1, b, 0);
}

/** An N-type value with its implied decimals, or null when it is not a signed digit string. */
export function readN(raw: string, decimals: number): number | null {
  const j = nJson(raw, 0, raw.length, decimals);
  return j === null ? null : Number(j);
}

/** An R-type value, or null when it is not a signed decimal with at most one point. */
export function readR(raw: string): number | null {
  const j = rJson(raw, 0, raw.length);
  return j === null ? null : Number(j);
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

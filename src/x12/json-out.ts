/**
 * A growing byte buffer that JSON text is written into, for the translation hot paths: element
 * values are copied character by character from the set's text (no slices, no string
 * concatenation), precomputed keys as bytes, and the result decoded once. Text is written as
 * UTF-8; while everything written is ASCII the result decodes as Latin-1 (one-byte copy).
 */

const QUOTE = 34;
const SPACE = 32;
const BACKSLASH = 92;

/** Bytes a JSON string cannot hold as they are (control characters, quote, backslash, non-ASCII). */
const special = new Uint8Array(256);
for (let c = 0; c < 256; c++) special[c] = c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH ? 1 : 0;

export class JsonOut {
  private buf: Buffer = Buffer.allocUnsafe(1 << 16);
  /** Bytes written. Set it back to a mark to undo what was written after it. */
  n = 0;
  /** Some non-ASCII text was written. */
  private utf8 = false;

  reset(): void {
    this.n = 0;
    this.utf8 = false;
  }

  private room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.n + k) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.n);
    this.buf = next;
  }

  byte(c: number): void {
    if (this.n >= this.buf.length) this.room(1);
    this.buf[this.n++] = c;
  }

  /** The last byte written (0 when none). */
  last(): number {
    return this.n > 0 ? (this.buf[this.n - 1] as number) : 0;
  }

  /** Precomputed bytes (keys, punctuation). */
  bytes(b: Uint8Array): void {
    const len = b.length;
    this.room(len);
    const buf = this.buf;
    let n = this.n;
    // keys are short: a plain loop beats the call overhead of TypedArray.set
    if (len <= 64) for (let i = 0; i < len; i++) buf[n++] = b[i] as number;
    else {
      buf.set(b, n);
      n += len;
    }
    this.n = n;
  }

  /** Any text, as UTF-8. */
  text(s: string): void {
    this.room(s.length * 3);
    const w = this.buf.write(s, this.n, 'utf8');
    if (w !== s.length) this.utf8 = true;
    this.n += w;
  }

  /** Characters `t[a, b)` known to be ASCII (digits, signs, points), as they are. */
  raw(t: string, a: number, b: number): void {
    this.room(b - a);
    const buf = this.buf;
    let n = this.n;
    for (let i = a; i < b; i++) buf[n++] = t.charCodeAt(i);
    this.n = n;
  }

  /** `t[a, b)` as a JSON string. */
  str(t: string, a: number, b: number): void {
    this.room(b - a + 2);
    const buf = this.buf;
    let n = this.n;
    buf[n++] = QUOTE;
    for (let i = a; i < b; i++) {
      const c = t.charCodeAt(i);
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        this.text(JSON.stringify(t.slice(a, b)));
        return;
      }
      buf[n++] = c;
    }
    buf[n++] = QUOTE;
    this.n = n;
  }

  /** `str` reading the characters from `src`, the bytes of `t` (ASCII text). */
  strBytes(src: Uint8Array, t: string, a: number, b: number): void {
    this.room(b - a + 2);
    const buf = this.buf;
    let n = this.n;
    buf[n++] = QUOTE;
    for (let i = a; i < b; i++) {
      const c = src[i] as number;
      if (special[c] !== 0) {
        this.text(JSON.stringify(t.slice(a, b)));
        return;
      }
      buf[n++] = c;
    }
    buf[n++] = QUOTE;
    this.n = n;
  }

  /**
   * Writes the bytes from `a` up to the first `sep` byte or `stop` as the body and closing quote
   * of a JSON string whose opening quote was written with its key, and returns where it stopped:
   * finding an element's end and copying it in one pass, trailing spaces left out. `t` is the text
   * of `src`, for the rare value that needs escaping.
   */
  strUntilQuoted(src: Uint8Array, t: string, a: number, stop: number, sep: number): number {
    this.room(stop - a + 1);
    const buf = this.buf;
    const body = this.n;
    let n = body;
    let i = a;
    for (; i < stop; i++) {
      const c = src[i] as number;
      if (c === sep) break;
      if (special[c] !== 0) {
        let j = i;
        while (j < stop && src[j] !== sep) j++;
        let e = j;
        while (e > a && src[e - 1] === SPACE) e--;
        this.n -= 1; // the opening quote: JSON.stringify writes its own
        this.text(JSON.stringify(t.slice(a, e)));
        return j;
      }
      buf[n++] = c;
    }
    // trailing spaces are not significant in X12 (a space is never escaped in JSON)
    while (n > body && buf[n - 1] === SPACE) n--;
    buf[n++] = QUOTE;
    this.n = n;
    return i;
  }

  /** `raw` reading from bytes. */
  rawBytes(src: Uint8Array, a: number, b: number): void {
    this.room(b - a);
    const buf = this.buf;
    let n = this.n;
    for (let i = a; i < b; i++) buf[n++] = src[i] as number;
    this.n = n;
  }

  /**
   * `t[a, b)` as a JSON string unless it holds the character `c1` or `c2` (a component or
   * repetition separator): then nothing is written and false is returned.
   */
  plain(t: string, a: number, b: number, c1: number, c2: number): boolean {
    this.room(b - a + 2);
    const buf = this.buf;
    let n = this.n;
    buf[n++] = QUOTE;
    for (let i = a; i < b; i++) {
      const c = t.charCodeAt(i);
      if (c === c1 || c === c2) return false;
      if (c < 0x20 || c > 0x7e || c === QUOTE || c === BACKSLASH) {
        for (let j = i + 1; j < b; j++) {
          const d = t.charCodeAt(j);
          if (d === c1 || d === c2) return false;
        }
        this.text(JSON.stringify(t.slice(a, b)));
        return true;
      }
      buf[n++] = c;
    }
    buf[n++] = QUOTE;
    this.n = n;
    return true;
  }

  /** Appends everything `other` holds, then empties `other`. */
  drain(other: JsonOut): void {
    const k = other.n;
    this.room(k);
    other.buf.copy(this.buf, this.n, 0, k);
    this.n += k;
    if (other.utf8) this.utf8 = true;
    other.reset();
  }

  /**
   * Everything written, as bytes handed over to the caller (no copy): the writer starts again
   * empty with a new buffer.
   */
  take(): Buffer {
    const out = this.buf.subarray(0, this.n);
    this.buf = Buffer.allocUnsafe(this.buf.length);
    this.n = 0;
    this.utf8 = false;
    return out;
  }

  /** Everything written, as a string. */
  toString(): string {
    return this.buf.toString(this.utf8 ? 'utf8' : 'latin1', 0, this.n);
  }
}

/** Bytes of an ASCII string, for precomputed keys. */
export function asciiBytes(s: string): Uint8Array {
  return Buffer.from(s, 'utf8');
}

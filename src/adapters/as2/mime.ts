/**
 * The MIME handling AS2 needs (RFC 2045/2046, RFC 1767): header blocks, Content-Type
 * parameters, multipart bodies split on the raw bytes, and transfer decodings.
 *
 * Signatures cover the exact bytes of a body part, so parts are cut out of the received buffer
 * and never re-serialized; an entity built here is serialized once and its bytes are what gets
 * signed, hashed for the MIC and sent.
 */
import { randomBytes } from 'node:crypto';

/** One header field as received (name as written, value unfolded and trimmed). */
export interface MimeHeader {
  readonly name: string;
  readonly value: string;
}

/** A MIME entity: its header block and its body, both as bytes from the wire. */
export interface MimeEntity {
  readonly headers: readonly MimeHeader[];
  /** The body as transmitted (before any Content-Transfer-Encoding decoding). */
  readonly body: Buffer;
  /** The whole entity as received or built (header block, blank line, body). */
  readonly raw: Buffer;
}

export interface ContentType {
  /** `type/subtype`, lower case. */
  readonly mediaType: string;
  /** Parameter names lower case; values unquoted, as written. */
  readonly params: Readonly<Record<string, string>>;
}

const CRLF = Buffer.from('\r\n');

/** The value of the first header with this name (case-insensitive), or undefined. */
export function headerValue(headers: readonly MimeHeader[], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find((h) => h.name.toLowerCase() === lower)?.value;
}

/** Parses a header block (without the blank line); folded lines are unfolded. */
export function parseHeaderBlock(text: string): MimeHeader[] {
  const out: { name: string; value: string }[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (line === '') continue;
    if ((line.startsWith(' ') || line.startsWith('\t')) && out.length > 0) {
      const last = out[out.length - 1]!;
      last.value = `${last.value} ${line.trim()}`.trim();
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) throw new MimeError(`malformed header line "${line.slice(0, 80)}"`);
    out.push({ name: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  return out;
}

/** Where the header block ends: the index of the blank line and the length of the separator. */
function headerEnd(bytes: Buffer): { at: number; sep: number } | null {
  const crlf = bytes.indexOf('\r\n\r\n');
  const lf = bytes.indexOf('\n\n');
  if (crlf < 0 && lf < 0) return null;
  if (crlf >= 0 && (lf < 0 || crlf <= lf)) return { at: crlf, sep: 4 };
  return { at: lf, sep: 2 };
}

/** Parses a serialized entity (header block, blank line, body). */
export function parseEntity(raw: Buffer): MimeEntity {
  // an entity may start with the blank line when it has no headers at all
  if (raw.subarray(0, 2).equals(CRLF)) return { headers: [], body: raw.subarray(2), raw };
  if (raw[0] === 0x0a) return { headers: [], body: raw.subarray(1), raw };
  const end = headerEnd(raw);
  if (!end) throw new MimeError('no blank line after the MIME headers');
  const headers = parseHeaderBlock(raw.subarray(0, end.at).toString('latin1'));
  return { headers, body: raw.subarray(end.at + end.sep), raw };
}

/** An entity made of headers given separately (HTTP headers) and a body. */
export function entityOf(headers: readonly MimeHeader[], body: Buffer): MimeEntity {
  return { headers, body, raw: Buffer.concat([Buffer.from(headers.map((h) => `${h.name}: ${h.value}\r\n`).join('') + '\r\n', 'latin1'), body]) };
}

/** Serializes headers and a body into an entity; the returned `raw` is what gets signed or sent. */
export function buildEntity(headers: readonly MimeHeader[], body: Buffer): MimeEntity {
  for (const h of headers) {
    if (/[\r\n]/.test(h.name) || /[\r\n]/.test(h.value)) throw new MimeError(`header ${h.name} contains a line break`);
  }
  return entityOf(headers, body);
}

/** Parses a Content-Type value: `type/subtype; name=value; name="quoted value"`. */
export function parseContentType(value: string | undefined): ContentType {
  if (value === undefined || value.trim() === '') return { mediaType: 'text/plain', params: {} };
  const [head, rest] = splitFirst(value, ';');
  const params: Record<string, string> = {};
  let s = rest ?? '';
  while (s.length > 0) {
    s = s.replace(/^[\s;]+/, '');
    if (s === '') break;
    const eq = s.indexOf('=');
    if (eq < 0) break;
    const name = s.slice(0, eq).trim().toLowerCase();
    s = s.slice(eq + 1).trimStart();
    let v: string;
    if (s.startsWith('"')) {
      let i = 1;
      v = '';
      while (i < s.length && s[i] !== '"') {
        if (s[i] === '\\' && i + 1 < s.length) i++;
        v += s[i];
        i++;
      }
      s = s.slice(i + 1);
    } else {
      const semi = s.indexOf(';');
      v = (semi < 0 ? s : s.slice(0, semi)).trim();
      s = semi < 0 ? '' : s.slice(semi);
    }
    if (name !== '') params[name] = v;
  }
  return { mediaType: head.trim().toLowerCase(), params };
}

function splitFirst(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

/** The content type of an entity. */
export function contentTypeOf(entity: { readonly headers: readonly MimeHeader[] }): ContentType {
  return parseContentType(headerValue(entity.headers, 'content-type'));
}

/** A parameter value quoted when it needs to be (RFC 2045 tspecials, spaces). */
export function quoteParam(value: string): string {
  return /^[A-Za-z0-9!#$%&'*+\-.^_`{|}~]+$/.test(value) ? value : `"${value.replace(/(["\\])/g, '\\$1')}"`;
}

/**
 * Splits a multipart body into the raw bytes of its parts (RFC 2046 §5.1.1). A part's bytes
 * run from after its delimiter line to before the line break that precedes the next delimiter,
 * so a signed part comes out exactly as the sender hashed it. Bare LF line breaks are accepted.
 */
export function splitMultipart(body: Buffer, boundary: string): Buffer[] {
  if (boundary === '') throw new MimeError('multipart without a boundary parameter');
  const dash = Buffer.from(`--${boundary}`, 'latin1');
  const parts: Buffer[] = [];
  let contentStart = -1;
  let from = 0;
  for (;;) {
    const at = body.indexOf(dash, from);
    if (at < 0) break;
    const atLineStart = at === 0 || body[at - 1] === 0x0a;
    if (!atLineStart) {
      from = at + 1;
      continue;
    }
    const after = at + dash.length;
    const isClose = body[after] === 0x2d && body[after + 1] === 0x2d;
    // the delimiter line: the boundary, optional `--`, transport padding, the line break
    let lineEnd = body.indexOf(0x0a, after);
    const tail = body.subarray(after + (isClose ? 2 : 0), lineEnd < 0 ? body.length : lineEnd).toString('latin1');
    if (!/^[ \t]*\r?$/.test(tail)) {
      // the boundary string followed by other text is not a delimiter
      from = after;
      continue;
    }
    if (contentStart >= 0) {
      let end = at;
      if (end > 0 && body[end - 1] === 0x0a) end--;
      if (end > 0 && body[end - 1] === 0x0d) end--;
      parts.push(body.subarray(contentStart, Math.max(end, contentStart)));
    }
    if (isClose) return parts;
    if (lineEnd < 0) lineEnd = body.length - 1;
    contentStart = lineEnd + 1;
    from = contentStart;
  }
  if (contentStart >= 0) throw new MimeError(`multipart body has no closing boundary "--${boundary}--"`);
  throw new MimeError(`multipart body does not contain the boundary "${boundary}"`);
}

/** The body of an entity after its Content-Transfer-Encoding (base64, quoted-printable, 7bit, 8bit, binary). */
export function decodedBody(entity: MimeEntity): Buffer {
  const cte = (headerValue(entity.headers, 'content-transfer-encoding') ?? 'binary').trim().toLowerCase();
  if (cte === 'base64') return Buffer.from(entity.body.toString('latin1').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
  if (cte === 'quoted-printable') return decodeQuotedPrintable(entity.body);
  if (cte === '7bit' || cte === '8bit' || cte === 'binary') return entity.body;
  throw new MimeError(`unsupported Content-Transfer-Encoding "${cte}"`);
}

function decodeQuotedPrintable(body: Buffer): Buffer {
  const s = body.toString('latin1').replace(/[ \t]+(\r?\n)/g, '$1').replace(/=\r?\n/g, '');
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x3d && /^[0-9A-Fa-f]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else out.push(c);
  }
  return Buffer.from(out);
}

/** Base64 in lines of 76 characters, CRLF-terminated (RFC 2045 §6.8). */
export function base64Lines(data: Buffer): Buffer {
  const b64 = data.toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 76) lines.push(b64.slice(i, i + 76));
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');
}

/** Converts bare LF line breaks to CRLF (S/MIME canonical form of text). */
export function toCanonicalLineBreaks(bytes: Buffer): Buffer {
  if (!bytes.includes(0x0a)) return bytes;
  const out: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === 0x0a && (i === 0 || bytes[i - 1] !== 0x0d)) {
      out.push(bytes.subarray(start, i), CRLF);
      start = i + 1;
    }
  }
  out.push(bytes.subarray(start));
  return Buffer.concat(out);
}

/** True when the bytes contain an LF not preceded by CR. */
export function hasBareLineFeed(bytes: Buffer): boolean {
  for (let i = bytes.indexOf(0x0a); i >= 0; i = bytes.indexOf(0x0a, i + 1)) {
    if (i === 0 || bytes[i - 1] !== 0x0d) return true;
  }
  return false;
}

/** A fresh multipart boundary (random, never found in content by chance). */
export function newBoundary(): string {
  return `----=_tdx_${randomBytes(18).toString('hex')}`;
}

/** Joins parts into a multipart body with the given boundary. */
export function joinMultipart(parts: readonly Buffer[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) chunks.push(Buffer.from(`--${boundary}\r\n`, 'latin1'), p, CRLF);
  chunks.push(Buffer.from(`--${boundary}--\r\n`, 'latin1'));
  return Buffer.concat(chunks);
}

/** A MIME syntax problem in a received message. */
export class MimeError extends Error {
  override readonly name = 'MimeError';
}

import { describe, expect, it } from 'vitest';
import { decodedBody, entityOf, joinMultipart, MimeError, parseContentType, parseEntity, splitMultipart, toCanonicalLineBreaks, hasBareLineFeed } from '../../../../src/adapters/as2/mime.ts';

const b = (s: string): Buffer => Buffer.from(s, 'latin1');

describe('parseContentType', () => {
  it('reads the media type and quoted, escaped and bare parameters', () => {
    const ct = parseContentType('Multipart/Signed; protocol="application/pkcs7-signature"; micalg=sha-256;\tboundary="a \\"b\\";c"');
    expect(ct).toEqual({ mediaType: 'multipart/signed', params: { protocol: 'application/pkcs7-signature', micalg: 'sha-256', boundary: 'a "b";c' } });
  });

  it('defaults to text/plain when absent', () => {
    expect(parseContentType(undefined).mediaType).toBe('text/plain');
  });
});

describe('splitMultipart', () => {
  it('returns each part exactly as sent, without the line break that belongs to the next delimiter', () => {
    const body = b('preamble\r\n--XYZ\r\nContent-Type: text/plain\r\n\r\nline one\r\n\r\n--XYZ  \r\nContent-Type: a/b\r\n\r\n\x00\x01binary\r\n--XYZ--\r\nepilogue');
    const parts = splitMultipart(body, 'XYZ');
    expect(parts.map((p) => p.toString('latin1'))).toEqual(['Content-Type: text/plain\r\n\r\nline one\r\n', 'Content-Type: a/b\r\n\r\n\x00\x01binary']);
  });

  it('accepts bare LF line breaks', () => {
    const parts = splitMultipart(b('--q\nA: 1\n\nx\n--q\nB: 2\n\ny\n--q--\n'), 'q');
    expect(parts.map((p) => p.toString())).toEqual(['A: 1\n\nx', 'B: 2\n\ny']);
  });

  it('does not cut at the boundary string inside a line or followed by other text', () => {
    const parts = splitMultipart(b('--q\r\n\r\nsee --q here\r\n--qq is longer\r\n--q--\r\n'), 'q');
    expect(parts.map((p) => p.toString())).toEqual(['\r\nsee --q here\r\n--qq is longer']);
  });

  it('round-trips what joinMultipart builds, including a part that ends in CRLF', () => {
    const a = b('Content-Type: multipart/report; boundary=i\r\n\r\n--i\r\n\r\nx\r\n--i--\r\n');
    const c = b('Content-Type: application/pkcs7-signature\r\n\r\nAAAA\r\n');
    expect(splitMultipart(joinMultipart([a, c], 'outer'), 'outer')).toEqual([a, c]);
  });

  it('names a missing boundary and a missing closing delimiter', () => {
    expect(() => splitMultipart(b('no parts here'), 'q')).toThrow(MimeError);
    expect(() => splitMultipart(b('--q\r\n\r\nx\r\n'), 'q')).toThrow(/no closing boundary "--q--"/);
    expect(() => splitMultipart(b('--q--'), '')).toThrow(/without a boundary/);
  });
});

describe('entities', () => {
  it('parses a header block ended by CRLF CRLF or LF LF, unfolding continued lines', () => {
    const e = parseEntity(b('Content-Type: application/pkcs7-mime;\r\n\tsmime-type=enveloped-data\r\nX: y\r\n\r\nBODY'));
    expect(e.headers).toEqual([
      { name: 'Content-Type', value: 'application/pkcs7-mime; smime-type=enveloped-data' },
      { name: 'X', value: 'y' },
    ]);
    expect(e.body.toString()).toBe('BODY');
    expect(parseEntity(b('A: 1\n\nbody')).body.toString()).toBe('body');
  });

  it('serializes headers and body into the bytes it parses back', () => {
    const e = entityOf([{ name: 'Content-Type', value: 'text/plain' }], b('x'));
    expect(e.raw.toString()).toBe('Content-Type: text/plain\r\n\r\nx');
    expect(parseEntity(e.raw).headers).toEqual(e.headers);
  });

  it('decodes base64 and quoted-printable bodies and refuses unknown encodings', () => {
    expect(decodedBody(parseEntity(b('Content-Transfer-Encoding: base64\r\n\r\naGVs\r\nbG8=\r\n'))).toString()).toBe('hello');
    expect(decodedBody(parseEntity(b('Content-Transfer-Encoding: quoted-printable\r\n\r\na=3Db=\r\nc \r\n'))).toString()).toBe('a=bc\r\n');
    expect(() => decodedBody(parseEntity(b('Content-Transfer-Encoding: x-uuencode\r\n\r\n')))).toThrow(/x-uuencode/);
  });

  it('canonicalizes bare LF to CRLF and leaves CRLF alone', () => {
    expect(toCanonicalLineBreaks(b('a\nb\r\nc\n')).toString()).toBe('a\r\nb\r\nc\r\n');
    expect(hasBareLineFeed(b('a\r\nb'))).toBe(false);
    expect(hasBareLineFeed(b('a\r\nb\n'))).toBe(true);
  });
});

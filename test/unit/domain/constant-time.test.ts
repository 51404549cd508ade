import { describe, expect, it } from 'vitest';
import { sameSecret } from '../../../src/domain/constant-time.ts';

describe('sameSecret', () => {
  it('is true for the same secret, as text or bytes', () => {
    expect(sameSecret('s3cret-token', 's3cret-token')).toBe(true);
    expect(sameSecret(Buffer.from([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(sameSecret('', '')).toBe(true);
  });

  it('is false for a secret that differs in one byte, in its length, or only past a common prefix', () => {
    expect(sameSecret('s3cret-token', 's3cret-tokeN')).toBe(false);
    expect(sameSecret('s3cret-token', 's3cret-token-')).toBe(false);
    expect(sameSecret('s3cret', 's3cret-token')).toBe(false);
    expect(sameSecret('', 'x')).toBe(false);
  });

  it('compares the UTF-8 bytes of text, not its characters', () => {
    expect(sameSecret('é', Buffer.from('é'))).toBe(true);
    expect(sameSecret('é', 'e')).toBe(false);
  });
});

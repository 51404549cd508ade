import { describe, expect, it } from 'vitest';
import { idempotencyKeyOf, requestFingerprint, reusedKey } from '../../../src/domain/idempotency.ts';
import { isTdxError } from '../../../src/errors.ts';

describe('Idempotency-Key', () => {
  it('takes 1 to 255 printable ASCII characters, and no header as no key', () => {
    expect(idempotencyKeyOf(undefined)).toBeNull();
    expect(idempotencyKeyOf('0190d2a8-1b2c-7000-8000-000000000001')).toBe('0190d2a8-1b2c-7000-8000-000000000001');
    expect(idempotencyKeyOf('x'.repeat(255))).toBe('x'.repeat(255));
    for (const bad of ['', 'has space', 'x'.repeat(256), 'tab\there', 'é']) {
      try {
        idempotencyKeyOf(bad);
        expect.unreachable();
      } catch (err) {
        expect(isTdxError(err) && err.code === 'invalid_parameter' && err.status === 400).toBe(true);
      }
    }
  });

  it('fingerprints endpoint, partner (any case) and body', () => {
    const a = requestFingerprint('edi', 'ACME', 'abc');
    expect(requestFingerprint('edi', 'acme', 'abc')).toBe(a);
    expect(requestFingerprint('documents', 'ACME', 'abc')).not.toBe(a);
    expect(requestFingerprint('edi', 'GLOBEX', 'abc')).not.toBe(a);
    expect(requestFingerprint('edi', 'ACME', 'abd')).not.toBe(a);
  });

  it('a reused key is 422 idempotency_key_reused naming the key', () => {
    const e = reusedKey('k-1');
    expect([e.code, e.status]).toEqual(['idempotency_key_reused', 422]);
    expect(e.message).toContain('k-1');
  });
});

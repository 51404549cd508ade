import { describe, expect, it } from 'vitest';
import { loadCredentials } from '../../../../src/adapters/as2/keys.ts';
import { buildMdn, evaluateMdn, formatDisposition, isPositive, parseDisposition, parseMdn } from '../../../../src/adapters/as2/mdn.ts';
import { computeMic, formatMic, micMatches, parseMic } from '../../../../src/adapters/as2/mic.ts';
import { mimeHeadersOf, parseReceiptOptions } from '../../../../src/adapters/as2/headers.ts';
import { credentials, keyPair } from '../../../support/as2-keys.ts';

const ours = keyPair('ours');
const partner = keyPair('partner');
// the partner builds receipts; we judge them
const partnerSide = loadCredentials(credentials(partner, ours));
const ourSide = loadCredentials(credentials(ours, partner));
const mic = computeMic(Buffer.from('signed entity'), 'sha256');
const expectation = { messageId: '<m1@tdx>', mic, micRequired: true, signedReceipt: true };

async function receipt(over: Partial<Parameters<typeof buildMdn>[0]> = {}) {
  const m = await buildMdn({ originalMessageId: 'm1@tdx', from: 'PARTNER', to: 'OURS', mic, modifier: null, text: 'ok', sign: { credentials: partnerSide, digest: 'sha256' }, ...over });
  return { headers: mimeHeadersOf(m.headers), body: m.body, built: m };
}

describe('dispositions', () => {
  it('formats and parses the RFC 4130 disposition field', () => {
    expect(formatDisposition(null)).toBe('automatic-action/MDN-sent-automatically; processed');
    expect(formatDisposition('decryption-failed')).toBe('automatic-action/MDN-sent-automatically; processed/error: decryption-failed');
    const d = parseDisposition('automatic-action/MDN-sent-automatically;\r\n      processed/Error: authentication-failed');
    expect([d.type, d.modifierKind, d.modifier, isPositive(d)]).toEqual(['processed', 'error', 'authentication-failed', false]);
    expect(isPositive(parseDisposition('automatic-action/MDN-sent-automatically; processed/warning: duplicate-document'))).toBe(true);
    expect(isPositive(parseDisposition('automatic-action/MDN-sent-automatically; failed/Failure: unsupported format'))).toBe(false);
  });

  it('reads MIC fields in the spellings AS2 software uses', () => {
    expect(formatMic(mic)).toMatch(/^[A-Za-z0-9+/=]{44}, sha-256$/);
    for (const token of ['sha-256', 'sha256', 'SHA256']) expect(micMatches(mic, parseMic(`${mic.value}, ${token}`)!)).toBe(true);
    expect(micMatches(mic, parseMic(`${mic.value}, sha1`)!)).toBe(false);
    expect(micMatches(mic, parseMic(`${computeMic(Buffer.from('other'), 'sha256').value}, sha-256`)!)).toBe(false);
  });

  it('reads what a sender asks of the receipt', () => {
    expect(parseReceiptOptions('signed-receipt-protocol=optional, pkcs7-signature; signed-receipt-micalg=optional, sha-256, sha1, md5')).toEqual({ signed: true, micalgs: ['sha256', 'sha1'], unsupportedMicalgs: ['md5'], micalgRequired: false });
    expect(parseReceiptOptions('signed-receipt-protocol=required, pkcs7-signature; signed-receipt-micalg=required, md5')).toEqual({ signed: true, micalgs: [], unsupportedMicalgs: ['md5'], micalgRequired: true });
    expect(parseReceiptOptions(undefined)).toEqual({ signed: false, micalgs: [], unsupportedMicalgs: [], micalgRequired: false });
  });
});

describe('receipts', () => {
  it('builds a signed receipt that parses back with its fields', async () => {
    const { headers, body, built } = await receipt();
    expect(built.headers['Content-Type']).toMatch(/^multipart\/signed; protocol="application\/pkcs7-signature"; micalg=sha-256; boundary=/);
    expect(built.headers['AS2-From']).toBe('PARTNER');
    const p = parseMdn(headers, body);
    expect(p.originalMessageId).toBe('m1@tdx');
    expect(p.disposition?.type).toBe('processed');
    expect(p.mic?.value).toBe(mic.value);
    expect(p.signature).not.toBeNull();
    expect(body.toString('latin1')).toContain(`Received-content-MIC: ${mic.value}, sha-256\r\n`);
  });

  it('judges a good receipt processed and every kind of bad one failed', async () => {
    const good = await receipt();
    expect(await evaluateMdn(good.headers, good.body, expectation, ourSide.pkiPartnerCertificate)).toMatchObject({ status: 'processed', micMatched: true, signed: true, reason: null });

    const wrongMic = await receipt({ mic: computeMic(Buffer.from('other'), 'sha256') });
    expect(await evaluateMdn(wrongMic.headers, wrongMic.body, expectation, ourSide.pkiPartnerCertificate)).toMatchObject({ status: 'failed', micMatched: false });

    const negative = await receipt({ modifier: 'decryption-failed', mic: null, text: 'cannot decrypt' });
    const n = await evaluateMdn(negative.headers, negative.body, expectation, ourSide.pkiPartnerCertificate);
    expect(n).toMatchObject({ status: 'failed', modifier: 'decryption-failed' });
    expect(n.reason).toContain('processed/error: decryption-failed');

    const otherMessage = await receipt({ originalMessageId: 'm2@tdx' });
    expect((await evaluateMdn(otherMessage.headers, otherMessage.body, expectation, ourSide.pkiPartnerCertificate)).reason).toMatch(/answers message m2@tdx/);

    const unsigned = await receipt({ sign: null });
    expect((await evaluateMdn(unsigned.headers, unsigned.body, expectation, ourSide.pkiPartnerCertificate)).reason).toMatch(/unsigned/);
    expect((await evaluateMdn(unsigned.headers, unsigned.body, { ...expectation, signedReceipt: false }, ourSide.pkiPartnerCertificate)).status).toBe('processed');

    const noMic = await receipt({ mic: null });
    expect((await evaluateMdn(noMic.headers, noMic.body, expectation, ourSide.pkiPartnerCertificate)).reason).toMatch(/no MIC/);
    expect((await evaluateMdn(noMic.headers, noMic.body, { ...expectation, micRequired: false }, ourSide.pkiPartnerCertificate)).status).toBe('processed');

    // a receipt altered in transit: its signature no longer verifies
    const altered = Buffer.from(good.body.toString('latin1').replace('processed', 'processeD'), 'latin1');
    expect((await evaluateMdn(good.headers, altered, expectation, ourSide.pkiPartnerCertificate)).reason).toMatch(/signature is not valid/);
    // signed by someone else than the partner
    const byUs = await receipt({ sign: { credentials: ourSide, digest: 'sha256' } });
    expect((await evaluateMdn(byUs.headers, byUs.body, expectation, ourSide.pkiPartnerCertificate)).reason).toMatch(/signature is not valid/);

    expect((await evaluateMdn(mimeHeadersOf({ 'content-type': 'text/html' }), Buffer.from('<html>'), expectation, ourSide.pkiPartnerCertificate)).reason).toMatch(/not a readable MDN/);
  });
});

import { describe, expect, it } from 'vitest';
import { isLinkLocalAddress, webhookUrlProblem } from '../../../src/domain/link-local.ts';

describe('isLinkLocalAddress', () => {
  it.each([
    ['169.254.169.254', true],
    ['169.254.0.0', true],
    ['169.254.255.255', true],
    ['169.253.255.255', false],
    ['169.255.0.1', false],
    ['10.0.0.1', false],
    ['127.0.0.1', false],
    ['fe80::1', true],
    ['[fe80::1]', true],
    ['FE80::abcd:1%eth0', true],
    ['febf:ffff::1', true], // top of fe80::/10
    ['fec0::1', false], // just above it (old site-local)
    ['fe7f::1', false],
    ['::1', false],
    ['2001:db8::1', false],
    ['::ffff:169.254.169.254', true],
    ['[::ffff:a9fe:a9fe]', true], // how the URL parser writes the mapped form
    ['::169.254.1.1', true],
    ['::ffff:10.0.0.1', false],
    ['fd00:ec2::254', false],
    ['example.com', false],
    ['169.254.1', false],
    ['1:2:3:4:5:6:7:8:9', false],
  ])('%s → %s', (address, want) => {
    expect(isLinkLocalAddress(address)).toBe(want);
  });
});

describe('webhookUrlProblem', () => {
  it('refuses link-local hosts however the address is spelled', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://2852039166/', // 169.254.169.254 as one decimal number
      'http://0xa9.0xfe.0xa9.0xfe/',
      'http://0251.0376.0251.0376/', // octal
      'https://[fe80::1]:8443/hook',
      'http://[::ffff:169.254.169.254]/',
      'http://user:pw@169.254.0.1:80/x',
    ]) {
      expect(webhookUrlProblem(url), url).toMatch(/^points at the link-local address .* \(169\.254\.0\.0\/16, fe80::\/10\)/);
    }
  });

  it('accepts ordinary URLs, loopback and private ranges included', () => {
    for (const url of ['http://127.0.0.1:9901/edi/inbound', 'https://erp.example.com/hooks', 'http://10.1.2.3/x', 'http://[::1]:9901/', 'http://169.254.example.com/']) {
      expect(webhookUrlProblem(url), url).toBeUndefined();
    }
  });

  it('names a URL that is not one, or not http(s)', () => {
    expect(webhookUrlProblem('not a url')).toBe('not a valid URL');
    expect(webhookUrlProblem('ftp://example.com/')).toBe('must be an http or https URL');
  });
});

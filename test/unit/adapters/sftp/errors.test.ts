import { describe, expect, it } from 'vitest';
import { classifySftpError, type SftpContext } from '../../../../src/adapters/sftp/errors.ts';
import { TdxError } from '../../../../src/errors.ts';

const ctx: SftpContext = { host: 'sftp.acme.example', port: 2222, username: 'acme', operation: 'list', path: 'acme/outbox' };
// the shapes ssh2 1.x gives its errors (level for connection failures, numeric SFTP status codes)
const err = (message: string, extra: Record<string, unknown>) => Object.assign(new Error(message), extra);

describe('classifySftpError', () => {
  it.each([
    ['refused', err('connect ECONNREFUSED 10.0.0.1:2222', { code: 'ECONNREFUSED', level: 'client-socket' }), 'sftp_unreachable', true],
    ['reset', err('read ECONNRESET', { code: 'ECONNRESET', level: 'client-socket' }), 'sftp_unreachable', true],
    ['handshake timeout', err('Timed out while waiting for handshake', { level: 'client-timeout' }), 'sftp_unreachable', true],
    ['lost before handshake', err('Connection lost before handshake', { level: 'protocol' }), 'sftp_unreachable', true],
    ['host unreachable', err('connect EHOSTUNREACH', { code: 'EHOSTUNREACH', level: 'client-socket' }), 'sftp_unreachable', true],
    ['name not resolved', err('getaddrinfo ENOTFOUND sftp.acme.example', { code: 'ENOTFOUND', level: 'client-socket' }), 'sftp_unreachable', true],
    ['connection lost (SFTP status 7)', err('Connection lost', { code: 7 }), 'sftp_unreachable', true],
    ['no response', err('No response from server', {}), 'sftp_unreachable', true],
    ['credentials', err('All configured authentication methods failed', { level: 'client-authentication' }), 'sftp_auth_failed', false],
    ['missing', err('No such file', { code: 2 }), 'sftp_not_found', false],
    ['permission', err('Permission denied', { code: 3 }), 'sftp_permission_denied', false],
    ['failure', err('Failure', { code: 4 }), 'sftp_failed', false],
    ['unsupported', err('Operation unsupported', { code: 8 }), 'sftp_failed', false],
    ['handshake algorithms', err('Handshake failed: no matching key exchange algorithm', { level: 'handshake' }), 'sftp_failed', false],
  ])('%s', (_name, e, code, retriable) => {
    const t = classifySftpError(e, ctx);
    expect(t).toBeInstanceOf(TdxError);
    expect([t.code, t.retriable]).toEqual([code, retriable]);
    expect(t.message).toContain('acme@sftp.acme.example:2222');
    expect(t.message).toContain('"acme/outbox"');
    expect(t.message).toMatch(retriable ? /\(retryable\)$/ : /\(not retried/);
    expect(t.details).toMatchObject({ host: 'sftp.acme.example', port: 2222, username: 'acme', operation: 'list', path: 'acme/outbox' });
    expect(t.cause).toBe(e);
  });

  it('says what to fix for a missing directory and for refused credentials', () => {
    expect(classifySftpError(err('No such file', { code: 2 }), ctx).message).toBe(
      'SFTP listing of directory "acme/outbox" on acme@sftp.acme.example:2222 failed: no such file or directory (not retried: create it on the server or fix the connection\'s directory; relative paths start at the login folder)',
    );
    expect(classifySftpError(err('All configured authentication methods failed', { level: 'client-authentication' }), { ...ctx, operation: 'connect', path: undefined }).message).toBe(
      "SFTP connection to acme@sftp.acme.example:2222 failed: the server refused the credentials (not retried: fix the connection's username and password or private key)",
    );
  });

  it('passes a TdxError through unchanged', () => {
    const t = new TdxError('sftp_target_exists', 'x');
    expect(classifySftpError(t, ctx)).toBe(t);
  });
});

/**
 * Turns what ssh2 reports into one `TdxError` per failure class, with a message naming the
 * operation, user, host, port and path, and the retry decision in the code:
 *
 * - `sftp_unreachable` (retried): refused, reset, timed out, host or name unreachable, session
 *   lost mid-operation;
 * - `sftp_auth_failed`: the server refused the credentials, the key cannot be read, or the
 *   host key is not the expected one;
 * - `sftp_not_found`, `sftp_permission_denied`: what the server answered for the path;
 * - `sftp_failed`: any other server failure (its text included).
 *
 * Messages never carry a password, key or passphrase: ssh2's own texts for these failures do
 * not quote them, and nothing here adds them.
 */
import { TdxError, isTdxError, type ErrorCode } from '../../errors.ts';
import { NETWORK_REFUSED_CODES, NETWORK_RESET_CODES, NETWORK_UNREACHABLE_CODES, NETWORK_UNRESOLVED_CODES } from '../transient.ts';

/** What an operation was doing, for messages and `details`. */
export interface SftpContext {
  readonly host: string;
  readonly port: number;
  readonly username: string;
  /** `connect`, `list`, `stat`, `read`, `upload`, `remove`, `rename`, `mkdir`. */
  readonly operation: string;
  /** The directory or file the operation named (relative to the login folder unless absolute). */
  readonly path?: string;
  /** A second path (rename target). */
  readonly target?: string;
}

/** SFTP status codes (draft-ietf-secsh-filexfer-02 §7, the version OpenSSH speaks). */
const SFTP_STATUS = { NO_SUCH_FILE: 2, PERMISSION_DENIED: 3, FAILURE: 4, BAD_MESSAGE: 5, NO_CONNECTION: 6, CONNECTION_LOST: 7, OP_UNSUPPORTED: 8 } as const;

// the transient network failures of every transport (../transient.ts)
const REFUSED = NETWORK_REFUSED_CODES;
const RESET = NETWORK_RESET_CODES;
const UNREACHABLE = NETWORK_UNREACHABLE_CODES;
const UNRESOLVED = NETWORK_UNRESOLVED_CODES;

const where = (c: SftpContext): string => `${c.username}@${c.host}:${c.port}`;

function describe(c: SftpContext): string {
  const p = c.path === undefined ? '' : ` "${c.path}"`;
  switch (c.operation) {
    case 'connect':
      return `SFTP connection to ${where(c)}`;
    case 'list':
      return `SFTP listing of directory${p} on ${where(c)}`;
    case 'rename':
      return `SFTP rename of${p} to "${c.target ?? ''}" on ${where(c)}`;
    case 'upload':
      return `SFTP upload of${p} on ${where(c)}`;
    case 'mkdir':
      return `SFTP creation of directory${p} on ${where(c)}`;
    default:
      return `SFTP ${c.operation} of${p} on ${where(c)}`;
  }
}

/** Builds the error of one class for a context; `what` says what went wrong, in words. */
export function sftpError(code: Extract<ErrorCode, `sftp_${string}`>, c: SftpContext, what: string, options: { cause?: unknown; reason?: string; details?: Record<string, unknown> } = {}): TdxError {
  const advice =
    code === 'sftp_unreachable'
      ? ' (retryable)'
      : code === 'sftp_auth_failed'
        ? ' (not retried: fix the connection\'s username and password or private key)'
        : code === 'sftp_not_found'
          ? ' (not retried: create it on the server or fix the connection\'s directory; relative paths start at the login folder)'
          : code === 'sftp_permission_denied'
            ? ' (not retried: grant the SFTP user access, or use another directory)'
            : ' (not retried)';
  return new TdxError(code, `${describe(c)} failed: ${what}${advice}`, {
    ...(options.reason === undefined ? {} : { reason: options.reason }),
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    details: {
      host: c.host,
      port: c.port,
      username: c.username,
      operation: c.operation,
      ...(c.path === undefined ? {} : { path: c.path }),
      ...(c.target === undefined ? {} : { target: c.target }),
      ...options.details,
    },
  });
}

/** Classifies anything ssh2 (or the socket under it) threw or emitted. A `TdxError` passes through. */
export function classifySftpError(err: unknown, c: SftpContext): TdxError {
  if (isTdxError(err)) return err;
  const e = (typeof err === 'object' && err !== null ? err : { message: String(err) }) as { message?: string; code?: unknown; level?: unknown };
  const message = e.message ?? String(err);
  const code = e.code;
  if (typeof code === 'number') {
    const status = { sftpStatus: code };
    switch (code) {
      case SFTP_STATUS.NO_SUCH_FILE:
        return sftpError('sftp_not_found', c, 'no such file or directory', { cause: err, details: status });
      case SFTP_STATUS.PERMISSION_DENIED:
        return sftpError('sftp_permission_denied', c, 'permission denied', { cause: err, details: status });
      case SFTP_STATUS.NO_CONNECTION:
      case SFTP_STATUS.CONNECTION_LOST:
        return sftpError('sftp_unreachable', c, 'the connection was lost', { cause: err, details: status });
      case SFTP_STATUS.OP_UNSUPPORTED:
        return sftpError('sftp_failed', c, `the server does not support this operation (${message})`, { cause: err, reason: 'unsupported', details: status });
      default:
        return sftpError('sftp_failed', c, `the server answered "${message}"`, { cause: err, reason: 'server', details: status });
    }
  }
  const level = typeof e.level === 'string' ? e.level : undefined;
  if (level === 'client-authentication') {
    return sftpError('sftp_auth_failed', c, 'the server refused the credentials', { cause: err, reason: 'credentials' });
  }
  if (level === 'client-timeout') return sftpError('sftp_unreachable', c, 'timed out waiting for the SSH handshake', { cause: err, reason: 'timeout' });
  if (typeof code === 'string') {
    const syscall = { errno: code };
    if (REFUSED.has(code)) return sftpError('sftp_unreachable', c, 'connection refused', { cause: err, reason: 'refused', details: syscall });
    if (RESET.has(code)) return sftpError('sftp_unreachable', c, 'connection reset', { cause: err, reason: 'reset', details: syscall });
    if (UNREACHABLE.has(code)) return sftpError('sftp_unreachable', c, `host unreachable (${code})`, { cause: err, reason: 'unreachable', details: syscall });
    if (UNRESOLVED.has(code)) return sftpError('sftp_unreachable', c, `host name not resolved (${code})`, { cause: err, reason: 'unresolved', details: syscall });
  }
  if (level === 'protocol' || level === 'client-socket' || /connection lost|no response from server|not connected|channel.*(closed|open failure)/i.test(message)) {
    return sftpError('sftp_unreachable', c, `the connection was lost (${message})`, { cause: err, reason: 'lost' });
  }
  if (level === 'handshake') {
    return sftpError('sftp_failed', c, `SSH handshake failed (${message})`, { cause: err, reason: 'handshake' });
  }
  return sftpError('sftp_failed', c, message, { cause: err, reason: 'other' });
}

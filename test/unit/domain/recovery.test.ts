import { describe, expect, it } from 'vitest';
import { codeMatches, decide, failureCode, latestDelivery, readRecoveryRequest, recoveryCommandId, visibleStatus } from '../../../src/domain/recovery.ts';
import type { ResultRecord } from '../../../src/domain/records.ts';
import { rateGate } from '../../../src/http/platform/recovery.ts';
import { isTdxError } from '../../../src/errors.ts';

let n = 0;
function r(over: Partial<ResultRecord>): ResultRecord {
  n++;
  return {
    id: `r${n}`,
    organizationId: 'o',
    traceGuid: 't',
    transactionId: 'x',
    flowId: 'f',
    nodeId: 'f.webhook',
    nodeName: 'Webhook delivery',
    service: 'webhook',
    status: 'error',
    direction: 'outbound',
    partnerKey: 'ACME',
    resend: false,
    detail: {},
    payload: null,
    createdAt: n * 10,
    updatedAt: n * 10,
    ...over,
  };
}

const limits = { defaultRatePerSecond: 10, maxRatePerSecond: 100 };

describe('recovery decisions', () => {
  it('recovers the latest failed delivery, not the notification about it', () => {
    const failure = r({ detail: { webhook: { statusCode: 503 } } });
    const note = r({ nodeId: 'f.notify.error', nodeName: 'Error notification', detail: { webhook: { statusCode: 500 } } });
    const d = decide({ direction: 'inbound' }, [r({ service: 'mapping', nodeId: 'f.map', status: 'success' }), failure, note], {});
    expect(d).toEqual({ recover: true, failure, kind: 'redeliver' });
    expect(latestDelivery([failure, note])).toBe(failure);
  });

  it('skips a document delivered since, one that never reached delivery, and other error codes', () => {
    const failure = r({ detail: { webhook: { statusCode: 503 } } });
    expect(decide({ direction: 'inbound' }, [failure, r({ status: 'success', resend: true })], {})).toEqual({ recover: false, reason: 'delivered_since' });
    expect(decide({ direction: 'inbound' }, [r({ service: 'mapping', nodeId: 'f.map' })], {})).toEqual({ recover: false, reason: 'not_a_delivery_failure' });
    expect(decide({ direction: 'inbound' }, [failure], { errorCodes: ['http_4xx'] })).toEqual({ recover: false, reason: 'other_error_code' });
    expect(decide({ direction: 'outbound' }, [r({ service: 'sftp_upload', nodeId: 'f.up', detail: { errorMessage: 'Upload failed: sftp_unreachable' } })], { errorCodes: ['sftp_unreachable'] })).toMatchObject({ recover: true, kind: 'resend' });
  });

  it('names failures by code and matches classes', () => {
    expect(failureCode(r({ detail: { webhook: { statusCode: 503 } } }))).toBe('http_503');
    expect(failureCode(r({ detail: { errorMessage: 'Webhook delivery to http://x failed after 6 attempts: connection refused.' } }))).toBe('connection_refused');
    expect(failureCode(r({ detail: { errorMessage: 'failed: timeout after 10000 ms' } }))).toBe('timeout');
    expect(failureCode(r({ service: 'as2_send', detail: { errorMessage: 'failed: no MDN for message <a@b> within 10 minutes' } }))).toBe('no_mdn');
    expect(failureCode(r({ service: 'as2_send', detail: { errorMessage: 'odd' } }))).toBe('as2_send_failed');
    expect(codeMatches('http_503', ['http_5xx'])).toBe(true);
    expect(codeMatches('http_503', ['http_4xx', 'timeout'])).toBe(false);
    expect(codeMatches('timeout', undefined)).toBe(true);
  });

  it('derives one command id per failure, whatever the run', () => {
    expect(recoveryCommandId('o', 'x', 'r1')).toBe(recoveryCommandId('o', 'x', 'r1'));
    expect(recoveryCommandId('o', 'x', 'r1')).not.toBe(recoveryCommandId('o', 'x', 'r2'));
  });

  it('shows a running run without progress for a while as abandoned', () => {
    expect(visibleStatus({ status: 'running', updatedAt: 0 }, 10_000_000)).toBe('running');
    expect(visibleStatus({ status: 'running', updatedAt: 0 }, 31_000_000)).toBe('abandoned');
    expect(visibleStatus({ status: 'done', updatedAt: 0 }, 31_000_000)).toBe('done');
  });
});

describe('recovery requests', () => {
  it('reads a filter and the rate', () => {
    expect(readRecoveryRequest({ partner: 'ACME', direction: 'inbound', since: '2026-11-26T10:00:00Z', errorCodes: ['http_5xx'], ratePerSecond: 50 }, limits)).toEqual({
      filter: { partner: 'ACME', direction: 'inbound', since: Date.parse('2026-11-26T10:00:00Z') * 1000, errorCodes: ['http_5xx'] },
      ratePerSecond: 50,
      dryRun: false,
    });
    expect(readRecoveryRequest({}, limits)).toEqual({ filter: {}, ratePerSecond: 10, dryRun: false });
    // above the highest rate: run at it; an empty window is no error
    expect(readRecoveryRequest({ ratePerSecond: 1000, since: '2026-11-26T10:00:00Z', until: '2026-11-26T09:00:00+00:00' }, limits).ratePerSecond).toBe(100);
  });

  it.each([
    [{ direction: 'sideways' }, 'direction'],
    [{ since: 'yesterday' }, 'since'],
    [{ since: '2026-11-26T10:00:00' }, 'since'],
    [{ partner: null }, 'partner'],
    [{ ratePerSecond: 0 }, 'ratePerSecond'],
    [{ ratePerSecond: null }, 'ratePerSecond'],
    [{ errorCodes: [] }, 'errorCodes'],
    [{ errorCodes: ['HTTP 503'] }, 'errorCodes'],
    [{ other: 1 }, 'other'],
    [{ dryRun: 'yes' }, 'dryRun'],
  ])('refuses %j naming %s', (body, field) => {
    try {
      readRecoveryRequest(body, limits);
      expect.unreachable();
    } catch (err) {
      expect(isTdxError(err) && err.code === 'invalid_body' && err.reason === field).toBe(true);
    }
  });
});

describe('rateGate', () => {
  it('spaces passes evenly at the rate', async () => {
    let now = 0;
    const waits: number[] = [];
    const gate = rateGate(4, () => now, (ms) => {
      waits.push(ms);
      return Promise.resolve();
    });
    for (let i = 0; i < 4; i++) await gate();
    expect(waits).toEqual([250, 500, 750]);
    now = 2000; // idle for a while: no burst is saved up beyond the next slot
    await gate();
    await gate();
    expect(waits.slice(3)).toEqual([250]);
  });
});

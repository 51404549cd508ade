import { describe, expect, it } from 'vitest';
import type { FlowRecord } from '../../../src/domain/configuration.ts';
import { pollDue, pollTargetOf, pollable, settledFiles, type SftpEntry } from '../../../src/domain/sftp-polling.ts';
import { loadConfig } from '../../../src/config.ts';
import { TdxError } from '../../../src/errors.ts';

const entry = (name: string, isFile = true): SftpEntry => ({ name, path: `in/${name}`, size: 1, mtime: 1, isFile, isDirectory: !isFile });

describe('pollable', () => {
  it('takes regular files and never hidden names (uploads in progress)', () => {
    expect(pollable([entry('PO-1.edi'), entry('.PO-2.edi.part'), entry('.x.abc.tdx-part'), entry('archive', false)]).map((e) => e.name)).toEqual(['PO-1.edi']);
  });
});

describe('settledFiles across polls', () => {
  it('accepts the last poll\'s stored listing (name, size, time) as the earlier look', () => {
    expect(settledFiles([{ name: 'a.edi', size: 1, mtime: 1 }], [entry('a.edi'), entry('b.edi')]).ready.map((e) => e.name)).toEqual(['a.edi']);
  });
});

describe('pollDue', () => {
  const at = (s: number): number => s * 1_000_000;
  it('is due when never polled, after frequency minutes, or when asked since the last poll; never when paused', () => {
    expect(pollDue(null, 5, 0)).toBe(true);
    expect(pollDue({ lastPollAt: null, requestedAt: null }, 5, 0)).toBe(true);
    expect(pollDue({ lastPollAt: at(1000), requestedAt: null }, 5, 1000_000 + 299_999)).toBe(false);
    expect(pollDue({ lastPollAt: at(1000), requestedAt: null }, 5, 1000_000 + 300_000)).toBe(true);
    expect(pollDue({ lastPollAt: at(1000), requestedAt: at(1001) }, 5, 1001_000)).toBe(true);
    expect(pollDue({ lastPollAt: at(1000), requestedAt: at(999) }, 5, 1001_000)).toBe(false);
    expect(pollDue(null, 0, 0)).toBe(false);
    expect(pollDue({ lastPollAt: at(10), requestedAt: null }, 2, 12_000, 1000)).toBe(true);
  });
});

describe('pollTargetOf', () => {
  const flow = (over: Partial<FlowRecord> = {}): FlowRecord =>
    ({ id: 'f', partnerId: 'p', direction: 'inbound', status: 'active', current: true, frequency: 5, nodes: [{ id: 'f.n1', name: 'Fetch from SFTP', kind: 'input', service: 'sftp_fetch', config: { connectionId: 'c1' } }], connections: [], ...over }) as FlowRecord;
  it('polls the current active inbound flow whose input reads an SFTP connection, unless paused', () => {
    expect(pollTargetOf('org', flow())).toMatchObject({ organizationId: 'org', nodeId: 'f.n1', connectionId: 'c1' });
    expect(pollTargetOf('org', flow({ frequency: 0 }))).toBeNull();
    expect(pollTargetOf('org', flow({ status: 'pending' }))).toBeNull();
    expect(pollTargetOf('org', flow({ current: false }))).toBeNull();
    expect(pollTargetOf('org', flow({ direction: 'outbound' }))).toBeNull();
    expect(pollTargetOf('org', flow({ nodes: [{ id: 'f.n1', name: 'Partner endpoint', kind: 'input', service: 'partner_endpoint', config: {} }] }))).toBeNull();
  });
});

describe('TDX_SFTP_FETCH_PAUSE and the poll settings', () => {
  it('reads `<phase>:<ms>` and refuses anything else', () => {
    expect(loadConfig({}).sftp).toMatchObject({ pollTickMs: 10_000, pollUnitMs: 60_000, pollLeaseMs: 60_000, pollMaxFiles: 500, pollConcurrency: 4, fetchPause: undefined });
    expect(loadConfig({ TDX_SFTP_FETCH_PAUSE: 'claimed:30000' }).sftp.fetchPause).toEqual({ phase: 'claimed', ms: 30_000 });
    expect(loadConfig({ TDX_SFTP_FETCH_PAUSE: 'produced:5' }).sftp.fetchPause).toEqual({ phase: 'produced', ms: 5 });
    expect(() => loadConfig({ TDX_SFTP_FETCH_PAUSE: 'later' })).toThrow(TdxError);
  });
});

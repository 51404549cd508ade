import { describe, expect, it } from 'vitest';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createHash } from 'node:crypto';
import { Sha256Tap, isTemporaryUploadName, settledFiles, sftpFileKey, sha256Hex, temporaryUploadName, type SftpEntry } from '../../../../src/adapters/sftp/files.ts';

const f = (name: string, size: number, mtime: number, isFile = true): SftpEntry => ({ name, path: `in/${name}`, size, mtime, isFile, isDirectory: !isFile });

describe('settledFiles', () => {
  it('ready: same size and time in both looks; changing: new, grown or touched', () => {
    const first = [f('a.edi', 10, 100), f('b.edi', 10, 100), f('c.edi', 10, 100), f('gone.edi', 5, 90), f('sub', 4096, 50, false)];
    const second = [f('a.edi', 10, 100), f('b.edi', 20, 101), f('c.edi', 10, 101), f('new.edi', 3, 102), f('sub', 4096, 50, false)];
    const r = settledFiles(first, second);
    expect(r.ready.map((e) => e.name)).toEqual(['a.edi']);
    expect(r.changing.map((e) => e.name)).toEqual(['b.edi', 'c.edi', 'new.edi']);
  });

  it('a first poll (nothing seen before) makes every file wait one look', () => {
    expect(settledFiles([], [f('a.edi', 1, 1)])).toEqual({ ready: [], changing: [f('a.edi', 1, 1)] });
  });
});

describe('temporary upload names', () => {
  it('are hidden, recognisable, and keep the final name readable', () => {
    const t = temporaryUploadName('INV-1.edi', 'a1b2c3');
    expect(t).toBe('.INV-1.edi.a1b2c3.tdx-part');
    expect(isTemporaryUploadName(t)).toBe(true);
    expect(isTemporaryUploadName('INV-1.edi')).toBe(false);
    expect(isTemporaryUploadName('.profile')).toBe(false);
    expect(isTemporaryUploadName('x.tdx-part')).toBe(false);
  });
});

describe('hashes', () => {
  it('sha256Hex is the standard SHA-256 (FIPS 180-4 "abc" vector)', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('Sha256Tap hashes and counts what streams through, unchanged', async () => {
    const parts = [Buffer.from('ISA*00*'), Buffer.alloc(100_000, 0x41), Buffer.from('~IEA*1~')];
    const tap = new Sha256Tap();
    const got: Buffer[] = [];
    await pipeline(Readable.from(parts), tap, new Writable({ write: (c: Buffer, _e, done) => (got.push(c), done()) }));
    const all = Buffer.concat(parts);
    expect(Buffer.concat(got).equals(all)).toBe(true);
    expect(tap.bytes).toBe(all.length);
    expect(tap.digest()).toBe(createHash('sha256').update(all).digest('hex'));
  });

  it('sftpFileKey: pinned derivation; any of connection, path, size, time or content changes it', () => {
    const file = { path: 'acme/outbox/po.edi', size: 120, mtime: 1_767_225_600, sha256: sha256Hex('ISA') };
    const k = sftpFileKey('0190f0c2-0000-7000-8000-000000000001', file);
    // stored: a change of derivation must fail here, not silently re-fetch every file
    expect(k).toBe('39d4757faaf5a7f5d5799d7bd43f840ad745dbd94256a7260f35ff6e3cf7a2cd');
    const others = [
      sftpFileKey('0190f0c2-0000-7000-8000-000000000002', file),
      sftpFileKey('0190f0c2-0000-7000-8000-000000000001', { ...file, path: 'acme/outbox/po2.edi' }),
      sftpFileKey('0190f0c2-0000-7000-8000-000000000001', { ...file, size: 121 }),
      sftpFileKey('0190f0c2-0000-7000-8000-000000000001', { ...file, mtime: file.mtime + 1 }),
      sftpFileKey('0190f0c2-0000-7000-8000-000000000001', { ...file, sha256: sha256Hex('ISB') }),
    ];
    expect(new Set([k, ...others]).size).toBe(6);
  });
});

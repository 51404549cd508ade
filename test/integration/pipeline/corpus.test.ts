/**
 * Every file of the shared corpus (../shared/corpus/x12, real partner files) submitted through
 * the partner endpoint, on the real stack: nothing stays `processing`; every set of a readable
 * file is recorded with the fields `tdx x12 parse` reports for it; a file with structural faults
 * carries `structural_error` warnings and is still delivered; an unreadable file ends in one
 * error result that names the fault. The partner has an inbound setting for every set and
 * release the engine has a standard definition of; the other sets end in an error result naming
 * the missing setting. Skipped when the corpus folder is absent.
 */
import { readFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/tdx.ts';
import { statusOf } from '../../../src/domain/records.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { startPipeline, type Pipeline } from './support.ts';
import { corpusDoc, corpusFiles, corpusPresent } from './corpus-support.ts';

const present = corpusPresent;

async function parsed(file: string): Promise<Record<string, unknown>[] | null> {
  let out = '';
  const stdout = new PassThrough();
  stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const stderr = new PassThrough();
  stderr.resume();
  const code = await runCli(['x12', 'parse', file], { stdout, stderr });
  if (code !== 0) return null;
  return out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe.skipIf(!present)('the shared corpus through the pipeline', () => {
  let p: Pipeline;
  const files = present ? corpusFiles() : [];
  beforeAll(async () => {
    // reads only its own organization and traces: the worker's keyspace, migrated once
    p = await startPipeline(corpusDoc(files), { sharedKeyspace: true });
  }, 240_000);
  afterAll(async () => p?.stop());

  it('records every set as tdx x12 parse reads it, delivers what has a setting, and never leaves a document processing', async () => {
    const traces = new Map<string, string>();
    for (const f of files) {
      const r = await p.submitEdi('CORPUS', readFileSync(f), 'text/plain');
      if (r.status === 400) {
        // not X12 at all (no ISA at the start): refused at the door, nothing stored
        expect(r.body['error']).toMatchObject({ code: 'invalid_body' });
        continue;
      }
      expect(r.status, f).toBe(202);
      traces.set(f, r.body['traceGuid'] as string);
    }
    let delivered = 0;
    let failedNoSetting = 0;
    let structural = 0;
    for (const [f, trace] of traces) {
      const lines = await parsed(f);
      if (lines === null) {
        // unreadable: one error result naming the fault, no transaction
        const results = await eventually(async () => {
          const rs = await p.results(trace);
          return rs.some((x) => x.status === 'error') ? rs : undefined;
        }, 120_000, `the error result of ${f}`);
        expect(await p.transactions(trace)).toEqual([]);
        const err = results.find((x) => x.status === 'error')!;
        expect(err.detail.errorMessage, f).toMatch(/not readable X12/);
        continue;
      }
      if (lines.length === 0) continue; // readable, but no transaction set: nothing to record
      const txs = await p.settled(trace, lines.length, 120_000);
      expect(txs.length, f).toBe(lines.length);
      const results = await p.results(trace);
      for (const [i, line] of lines.entries()) {
        const t = txs[i]!;
        expect(
          {
            transactionSetIdentifier: t.transactionSetIdentifier,
            transactionSetControlNumber: t.transactionSetControlNumber,
            groupControlNumber: t.groupControlNumber,
            interchangeControlNumber: t.interchangeControlNumber,
            senderQualifier: t.senderQualifier,
            senderExtid: t.senderExtid,
            receiverQualifier: t.receiverQualifier,
            receiverExtid: t.receiverExtid,
            usageIndicator: t.usageIndicator,
            reference: t.reference,
          },
          `${f} set ${i + 1}`,
        ).toEqual({
          transactionSetIdentifier: line['transactionSetIdentifier'],
          transactionSetControlNumber: String(line['transactionSetControlNumber']).trim(),
          groupControlNumber: String(line['groupControlNumber']).trim(),
          interchangeControlNumber: String(line['interchangeControlNumber']).trim(),
          senderQualifier: String(line['senderQualifier']).trim(),
          senderExtid: String(line['senderExtid']).trim(),
          receiverQualifier: String(line['receiverQualifier']).trim(),
          receiverExtid: String(line['receiverExtid']).trim(),
          usageIndicator: line['usageIndicator'],
          reference: line['reference'] === null ? null : (line['reference'] as string).trimEnd() || null,
        });
        const want = ((line['warnings'] as { code: string; detail: unknown }[]) ?? []).filter((w) => w.code === 'structural_error');
        const split = results.find((r) => r.transactionId === t.id && r.service === 'x12_split')!;
        const got = (split.detail.warnings ?? []).filter((w) => w.code === 'structural_error');
        expect(got.map((w) => w.detail), `${f} set ${i + 1} structural warnings`).toEqual(want.map((w) => w.detail));
        if (got.length > 0) structural++;
        const status = statusOf(t);
        const hasSetting = (split.status === 'success');
        if (hasSetting || ['997', '999'].includes(t.transactionSetIdentifier)) {
          // a warning never stops delivery
          expect(status, `${f} set ${i + 1}`).toBe('delivered');
          delivered++;
        } else {
          expect(status).toBe('error');
          expect(split.detail.errorMessage).toMatch(/no inbound transaction set setting/);
          failedNoSetting++;
        }
      }
    }
    expect(delivered).toBeGreaterThan(100);
    expect(structural).toBeGreaterThan(0);
    expect(failedNoSetting).toBeGreaterThan(0);
  }, 1_200_000);
});

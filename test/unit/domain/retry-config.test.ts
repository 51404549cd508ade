/**
 * The `retry` block of webhooks and connections and the connection's `resendReplace` (our
 * extensions): read from the file, checked by the schema, kept on the records, exported, and
 * absent on records that do not set them (so configurations applied before plan no change).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseConfigText } from '../../../src/admin/config-file.ts';
import { exportDocument } from '../../../src/domain/config-export.ts';
import { planApply } from '../../../src/domain/config-plan.ts';
import { EMPTY_STATE } from '../../../src/domain/configuration.ts';
import { x12ImplementationEngine as x12Engine } from '../../../src/domain/x12-implementation-engine.ts';
import { TdxError } from '../../../src/errors.ts';
import { demoEnv } from '../../support/demo-config.ts';

const demoText = readFileSync('deploy/demo/config.yaml', 'utf8');
const withRetry = (hook: string, conn: string): string =>
  demoText
    .replace('    url: http://127.0.0.1:9901/edi/inbound\n', `    url: http://127.0.0.1:9901/edi/inbound\n${hook}`)
    .replace('  - name: acme-sftp\n    kind: sftp\n', `  - name: acme-sftp\n    kind: sftp\n${conn}`);
const ctx = (at: string) => {
  let n = 0;
  return { now: at, newId: () => `id-${++n}`, author: 't', newSigningSecret: () => 'whsec_eA==', engine: x12Engine };
};
const parse = (text: string) => parseConfigText('cfg.yaml', text, x12Engine, { env: demoEnv(), baseDir: '.' });

describe('retry settings of webhooks and connections', () => {
  it('are kept on the records, exported, and applying the export changes nothing', () => {
    const doc = parse(withRetry('    retry: {delaysSeconds: [30, 120, 600, 1800, 7200], attemptTimeoutSeconds: 20}\n', '    retry: {delaysSeconds: [1, 2, 3, 4, 5]}\n    resendReplace: remove-then-rename\n'));
    const { state } = planApply(doc, EMPTY_STATE, ctx('2026-03-01T00:00:00.000Z'));
    expect(state.webhooks.find((w) => w.name === 'erp-inbound')!.retry).toEqual({ delaysSeconds: [30, 120, 600, 1800, 7200], attemptTimeoutSeconds: 20 });
    expect(state.webhooks.find((w) => w.name === 'erp-notifications')!.retry).toBeUndefined();
    const acme = state.connections.find((c) => c.name === 'acme-sftp')!;
    expect([acme.retry, acme.resendReplace]).toEqual([{ delaysSeconds: [1, 2, 3, 4, 5] }, 'remove-then-rename']);
    expect(state.connections.find((c) => c.name === 'globex-sftp')!.retry).toBeUndefined();
    const exported = exportDocument(state);
    expect(exported.webhooks?.find((w) => w.name === 'erp-inbound')?.retry).toEqual({ delaysSeconds: [30, 120, 600, 1800, 7200], attemptTimeoutSeconds: 20 });
    expect(exported.connections?.find((c) => c.name === 'acme-sftp')).toMatchObject({ retry: { delaysSeconds: [1, 2, 3, 4, 5] }, resendReplace: 'remove-then-rename' });
    expect(planApply(exported, state, ctx('2026-03-02T00:00:00.000Z')).changes).toEqual([]);
  });

  it.each([
    ['four delays', '    retry: {delaysSeconds: [1, 2, 3, 4]}\n'],
    ['a zero delay', '    retry: {delaysSeconds: [1, 0, 3, 4, 5]}\n'],
    ['a delay over a day', '    retry: {delaysSeconds: [1, 2, 3, 4, 86401]}\n'],
    ['an unknown field', '    retry: {maxAttempts: 10}\n'],
    ['a timeout over 10 minutes', '    retry: {attemptTimeoutSeconds: 601}\n'],
  ])('refuses %s (the contract keeps its 6 attempts)', (_what, block) => {
    try {
      parse(withRetry(block, ''));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(TdxError);
      expect(JSON.stringify((err as TdxError).details)).toContain('retry');
    }
  });

  it('refuses an unknown resendReplace', () => {
    expect(() => parse(withRetry('', '    resendReplace: overwrite\n'))).toThrow(TdxError);
  });
});

/**
 * The partner setting `acknowledgmentDeadlineMinutes` (our extension): read from the file
 * (positive, fractions allowed), kept on the partner record, exported, and absent on partners
 * that do not set it (so partners applied before the setting existed plan no change).
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
const withDeadline = (value: string) => demoText.replace('    trackAcknowledgments: true\n', `    trackAcknowledgments: true\n    acknowledgmentDeadlineMinutes: ${value}\n`);
const ctx = (at: string) => {
  let n = 0;
  return { now: at, newId: () => `id-${++n}`, author: 't', newSigningSecret: () => 'whsec_eA==', engine: x12Engine };
};

describe('acknowledgmentDeadlineMinutes', () => {
  it('is kept on the partner, exported, and applying the export changes nothing', () => {
    const doc = parseConfigText('cfg.yaml', withDeadline('90'), x12Engine, { env: demoEnv(), baseDir: '.' });
    const { state } = planApply(doc, EMPTY_STATE, ctx('2026-03-01T00:00:00.000Z'));
    expect(state.partners.map((p) => [p.key, p.acknowledgmentDeadlineMinutes])).toEqual([
      ['ACME', 90],
      ['GLOBEX', undefined],
      ['GADGET', undefined],
    ]);
    const exported = exportDocument(state);
    expect(exported.partners?.map((p) => p.acknowledgmentDeadlineMinutes)).toEqual([90, undefined, undefined]);
    expect(planApply(exported, state, ctx('2026-03-02T00:00:00.000Z')).changes).toEqual([]);
  });

  it('takes fractions and refuses zero or a negative number', () => {
    expect(parseConfigText('cfg.yaml', withDeadline('0.5'), x12Engine, { env: demoEnv(), baseDir: '.' }).partners?.[0]?.acknowledgmentDeadlineMinutes).toBe(0.5);
    for (const bad of ['0', '-5']) {
      try {
        parseConfigText('cfg.yaml', withDeadline(bad), x12Engine, { env: demoEnv(), baseDir: '.' });
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(TdxError);
        expect(JSON.stringify((err as TdxError).details)).toContain('acknowledgmentDeadlineMinutes');
      }
    }
  });
});

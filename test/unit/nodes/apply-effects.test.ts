/** What the runtime writes for a step's effects (src/nodes/runtime.ts applyEffects). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { applyEffects } from '../../../src/nodes/runtime.ts';
import { effects } from '../../../src/nodes/step.ts';
import type { ArtifactRecord } from '../../../src/domain/records.ts';
import { doc } from '../support/acme.ts';
import { memoryDeps } from '../support/memory-stores.ts';
import { memoryOrg } from '../support/org.ts';

const org = memoryOrg(doc);

function artifact(id: string, blobId: string): ArtifactRecord {
  return { organizationId: 'org-1', id, traceGuid: 'trace-1', resultId: 'result-1', nodeName: 'Map', usage: 'mapped', contentType: 'application/json', filename: null, size: 0, sha256: '', blobId, createdAt: 1 };
}

describe('applyEffects: artifacts', () => {
  it('writes an alias of bytes written with it, and an alias of that alias, from what was written: no read of the source', async () => {
    const deps = memoryDeps(org);
    const bytes = Buffer.from('{"order":"PO-1"}');
    const e = effects();
    e.artifacts.push({ record: artifact('a-bytes', 'a-bytes'), bytes }, { record: artifact('a-alias', 'a-bytes'), bytes: null }, { record: artifact('a-alias-2', 'a-alias'), bytes: null });
    await applyEffects(deps.stores, deps.emitter, e, 1);
    const a = deps.memory.artifacts;
    expect(a.aliasesGivenTheirSource).toBe(2);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    for (const id of ['a-alias', 'a-alias-2']) expect(await a.get('org-1', id)).toMatchObject({ id, blobId: 'a-bytes', size: bytes.length, sha256 });
    expect((await a.read((await a.get('org-1', 'a-alias-2'))!)).toString()).toBe('{"order":"PO-1"}');
  });

  it('reads the source of an alias whose bytes were written before', async () => {
    const deps = memoryDeps(org);
    await deps.stores.artifacts.put(artifact('earlier', 'earlier'), Buffer.from('abc'));
    const e = effects();
    e.artifacts.push({ record: artifact('later-alias', 'earlier'), bytes: null });
    await applyEffects(deps.stores, deps.emitter, e, 1);
    expect(deps.memory.artifacts.aliasesGivenTheirSource).toBe(0);
    expect(await deps.memory.artifacts.get('org-1', 'later-alias')).toMatchObject({ blobId: 'earlier', size: 3 });
  });
});

/**
 * Artifacts: GET /platform/artifacts/:id, the record and its bytes (a sandbox key reads only what
 * its sinks received).
 */
import { isWellFormedId } from '../../../domain/ids.ts';
import type { ArtifactAnswer, Caller, RecordsContext } from './common.ts';

/** GET /platform/artifacts/:id: the record and its bytes. */
export async function artifact(rc: RecordsContext, caller: Caller, id: string): Promise<ArtifactAnswer> {
  rc.access(caller, 'artifacts');
  let a = isWellFormedId(id) ? await rc.deps.artifacts.get(caller.organizationId, id) : null;
  if (a && caller.kind === 'sandbox' && !(await rc.deps.receipts.receivedArtifact(caller.organizationId, a.id))) a = null;
  if (!a || rc.aged(a.createdAt)) throw rc.notFound('artifact', 'artifact', id);
  const chunks = await rc.firstChunk(a, () => rc.gone('artifact', `The file of artifact "${id}" is no longer available`));
  return { record: a, chunks };
}

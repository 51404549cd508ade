/**
 * Traces: GET /platform/traces/:guid (DESIGN §3), a trace's transactions, results, artifacts and flow.
 */
import { isWellFormedId } from '../../../domain/ids.ts';
import type { ArtifactPointer } from '../../../domain/records.ts';
import { traceView } from '../../../domain/views.ts';
import type { Caller, RecordsContext } from './common.ts';

/** GET /platform/traces/:guid (DESIGN §3). */
export async function trace(rc: RecordsContext, caller: Caller, guid: string): Promise<Record<string, unknown>> {
  rc.access(caller, 'traces');
  if (!isWellFormedId(guid)) throw rc.notFound('trace', 'trace', guid);
  const org = caller.organizationId;
  const now = rc.now();
  const [allTransactions, allResults] = await Promise.all([rc.deps.transactions.byTrace(org, guid), rc.deps.results.byTrace(org, guid)]);
  const transactions = allTransactions.filter((t) => !rc.aged(t.createdAt, now)).map((t) => rc.delivered(t, now));
  const results = allResults.filter((r) => !rc.aged(r.createdAt, now));
  if (transactions.length === 0 && results.length === 0) throw rc.notFound('trace', 'trace', guid);
  // each artifact once, with the result and node that produced it (its record names them)
  const pointers = new Map<string, ArtifactPointer>();
  for (const r of results) for (const a of r.detail.artifacts ?? []) if (!pointers.has(a.id)) pointers.set(a.id, a);
  const records = await Promise.all([...pointers.keys()].map(async (id) => ((a) => (a && !rc.aged(a.createdAt, now) ? a : null))(await rc.deps.artifacts.get(org, id))));
  const producedAt = new Map(results.map((r) => [r.id, r.createdAt]));
  const artifacts = [...pointers.values()]
    .map((p, i) => {
      const rec = records[i];
      // an artifact whose record aged out is named with the first result that points to it
      const first = results.find((x) => (x.detail.artifacts ?? []).some((a) => a.id === p.id))!;
      const resultId = rec?.resultId ?? first.id;
      return { id: p.id, usage: p.usage, contentType: p.contentType, filename: p.filename, resultId, nodeName: rec?.nodeName ?? first.nodeName, at: rec?.createdAt ?? producedAt.get(resultId) ?? 0 };
    })
    .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1))
    .map(({ at: _at, ...a }) => a);
  const flowId = transactions.find((t) => t.flowId !== null)?.flowId ?? results.find((r) => r.flowId !== null)?.flowId ?? null;
  const flow = flowId ? await rc.deps.config.get(org, 'flow', flowId) : null;
  return traceView({
    traceGuid: guid,
    transactions,
    results,
    artifacts,
    flow: flow ? { id: flow.id, name: flow.name, versionNumber: flow.versionNumber, direction: flow.direction } : null,
  });
}

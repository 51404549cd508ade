/**
 * Logs: GET /platform/logs, the entries of one trace, oldest first.
 */
import { logEntryView } from '../../../domain/views.ts';
import type { CursorScope } from '../../middleware/cursor.ts';
import { recordOperations as ops } from '../records-operations.ts';
import { filtersText, micros, posKey, type Caller, type Query, type RecordsContext } from './common.ts';

/** GET /platform/logs: one trace, oldest first, entries younger than logVisibilityLagMs withheld. */
export async function logs(rc: RecordsContext, caller: Caller, query: Query): Promise<Record<string, unknown>> {
  rc.access(caller, 'logs');
  const { trace, level, since: sinceText, limit, cursor } = ops.logs.parseQuery(query);
  const since = micros(sinceText) ?? null;
  const scope: CursorScope = { endpoint: 'logs', organizationId: caller.organizationId, filters: filtersText({ trace, level }) };
  const after = rc.decode(scope, cursor);
  const bound = rc.now() - rc.deps.settings.logVisibilityLagMs * 1000;
  const page = await rc.deps.lists.logs(caller.organizationId, trace, level ?? null, after, after ? null : since, bound, limit);
  const last = page.rows[page.rows.length - 1];
  return {
    logs: page.rows.map(logEntryView),
    pagination: { hasMore: page.more, nextCursor: page.more && last ? rc.cursors.encode(scope, posKey(last)) : null },
  };
}

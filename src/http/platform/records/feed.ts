/**
 * The feed: GET /platform/feed_entries, oldest first, withholding what is not readable yet.
 */
import { positionBefore, type FeedFilters, type Position } from '../../../domain/records-query.ts';
import { feedListRowView } from '../../../domain/views.ts';
import type { CursorScope } from '../../middleware/cursor.ts';
import { recordOperations as ops } from '../records-operations.ts';
import { filtersText, micros, posKey, type Caller, type Query, type RecordsContext } from './common.ts';

/**
 * GET /platform/feed_entries: oldest first, withholding every entry created after
 * min(now - feedVisibilityLagMs, watermark). The watermark is how far the feed sequencer has
 * inserted (every entry at or before it is readable, since entries get their createdAt in
 * insertion order), so a reader following nextCursor never passes an entry that is not
 * readable yet, however far the materializer falls behind.
 */
export async function feed(rc: RecordsContext, caller: Caller, query: Query): Promise<Record<string, unknown>> {
  rc.access(caller, 'feed');
  const q = ops.feed.parseQuery(query);
  const filters: FeedFilters = { partner: q.partner, direction: q.direction, status: q.status, trace: q.trace };
  const since = micros(q.since) ?? null;
  const { limit, cursor } = q;
  // `since` only places the start: a cursor carries on from its position whatever `since` says
  const scope: CursorScope = { endpoint: 'feed_entries', organizationId: caller.organizationId, filters: filtersText({ ...filters, partner: filters.partner?.toLowerCase() }) };
  const after = rc.decode(scope, cursor);
  const { watermark, newest } = await rc.deps.lists.feedReadable(caller.organizationId);
  const bound = Math.min(rc.now() - rc.deps.settings.feedVisibilityLagMs * 1000, watermark);
  // A cursor at or past the organization's newest entry (of the same read as the watermark, so
  // every entry at or before `bound` is at or before it) has nothing after it: the empty page
  // the read would answer, without the read. A client polling an idle feed costs no query.
  const caughtUp = after !== null && newest !== null && !positionBefore(after, newest);
  const page = caughtUp ? { rows: [], more: false } : await rc.deps.lists.feed(caller.organizationId, filters, after, after ? null : since, bound, limit);
  const last = page.rows[page.rows.length - 1];
  const position: Position | null = last ?? after ?? (since !== null ? { createdAt: since, id: '' } : null);
  return {
    feedEntries: page.rows.map(feedListRowView),
    pagination: { hasMore: page.more, nextCursor: position ? rc.cursors.encode(scope, posKey(position)) : null },
  };
}

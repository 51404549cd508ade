/**
 * The records API (contract: "EDI transactions", "Results and artifacts", "Feed", "Logs", and
 * GET /platform/traces/:guid of DESIGN §3), independent of the transport: the HTTP routes
 * (records-routes.ts) and the MCP tools (src/http/mcp) call the same methods with the same
 * query parameters, so both check the same vocabulary, key rules and organization scope.
 *
 * - Lists read the ClickHouse projections (RecordLists), time-ordered; single records read
 *   Cassandra; both present records through the views of src/domain/views.ts.
 * - Every id-taking read is scoped to the caller's organization: an id of another organization,
 *   a malformed id and an absent id answer the same 404.
 * - Key kinds (DESIGN §3): read-only keys read everything; sandbox keys read only the results,
 *   payloads and artifacts a sandbox sink of their organization received (any other answers
 *   404) and get 403 on every other endpoint.
 *
 * Each resource is its own module under ./records/ (transactions, results and payloads,
 * artifacts, feed, logs, traces); what they share (authorisation, retention, cursors, the read
 * of stored bytes) is ./records/common.ts. `RecordsReader` is the one object the routes and the
 * MCP tools hold.
 */
import type { ResultView } from '../../domain/views.ts';
import type { CursorCodec } from '../middleware/cursor.ts';
import { RecordsContext, type ArtifactAnswer, type Caller, type PayloadAnswer, type Query, type RecordsDeps } from './records/common.ts';
import * as transactions from './records/transactions.ts';
import * as results from './records/results.ts';
import * as artifacts from './records/artifacts.ts';
import * as feed from './records/feed.ts';
import * as logs from './records/logs.ts';
import * as traces from './records/traces.ts';

export type { ArtifactAnswer, Caller, PayloadAnswer, Query, RecordsDeps, RecordsSettings } from './records/common.ts';

export class RecordsReader {
  private readonly rc: RecordsContext;

  constructor(deps: RecordsDeps, cursors: CursorCodec) {
    this.rc = new RecordsContext(deps, cursors);
  }

  /** GET /platform/edi_transactions: newest first. */
  listTransactions(caller: Caller, query: Query): Promise<Record<string, unknown>> {
    return transactions.listTransactions(this.rc, caller, query);
  }

  /** GET /platform/edi_transactions/:id. */
  transaction(caller: Caller, id: string): Promise<Record<string, unknown>> {
    return transactions.transaction(this.rc, caller, id);
  }

  /** GET /platform/results: newest first (a status filter sifted, ./records/results.ts). */
  listResults(caller: Caller, query: Query): Promise<Record<string, unknown>> {
    return results.listResults(this.rc, caller, query);
  }

  /** GET /platform/results/:id. */
  result(caller: Caller, id: string): Promise<ResultView> {
    return results.result(this.rc, caller, id);
  }

  /** GET /platform/results/:id/payload; `maxBytes` (the MCP tool's limit) refuses a larger payload. */
  payload(caller: Caller, id: string, query: Query, maxBytes?: number): Promise<PayloadAnswer> {
    return results.payload(this.rc, caller, id, query, maxBytes);
  }

  /** GET /platform/artifacts/:id: the record and its bytes. */
  artifact(caller: Caller, id: string): Promise<ArtifactAnswer> {
    return artifacts.artifact(this.rc, caller, id);
  }

  /** GET /platform/feed_entries: oldest first, what is not readable yet withheld. */
  feed(caller: Caller, query: Query): Promise<Record<string, unknown>> {
    return feed.feed(this.rc, caller, query);
  }

  /** GET /platform/logs: one trace, oldest first. */
  logs(caller: Caller, query: Query): Promise<Record<string, unknown>> {
    return logs.logs(this.rc, caller, query);
  }

  /** GET /platform/traces/:guid (DESIGN §3). */
  trace(caller: Caller, guid: string): Promise<Record<string, unknown>> {
    return traces.trace(this.rc, caller, guid);
  }
}

/**
 * Recovery runs (an extension beyond the contract; docs/transports.md, "Recovering failed
 * deliveries"): every failed delivery a filter selects is redelivered (inbound) or resent
 * (outbound) through the contract's replay path (`planReplay`, then `issueReplay`: the same
 * command on `commands.replay`, the same `resultId` and `webhook-id`, the same `resendCount`),
 * at most `ratePerSecond` replays a second, once.
 *
 * A run lists the failed transactions of the filter from the transaction projection, oldest
 * first, and for each one reads its results: a document whose latest delivery succeeded is
 * skipped, one that never reached delivery too; otherwise the failed delivery result is claimed
 * under a mark (a lightweight transaction) and the replay issued with a command id derived from
 * (transaction, failure). A second run finds the mark and issues nothing; a replay that failed
 * again leaves a newer failure, which a later run recovers. The run's progress is written to
 * Cassandra every half second, readable from every API replica.
 *
 * The run goes on in the background of the API process that took the request; when that
 * process stops, the run shows `abandoned`, and running it again takes up what is left (marks
 * claimed but never issued are issued by the next run after a minute).
 */
import { eachLimit } from '../../domain/concurrency.ts';
import { newId } from '../../domain/ids.ts';
import type { ResultStore, TransactionStore } from '../../domain/processing-ports.ts';
import type { Micros, StoredTransaction } from '../../domain/records.ts';
import type { RecordLists, TransactionFilters } from '../../domain/records-query.ts';
import {
  STALE_CLAIM_US,
  decide,
  emptyCounts,
  recoveryCommandId,
  type RecoveryCounts,
  type RecoveryRequest,
  type RecoveryRun,
  type RecoveryStore,
} from '../../domain/recovery.ts';
import { planReplay } from '../../domain/replay.ts';
import type { Logger } from '../../logger.ts';
import { replayFacts, type ReplayLoadDeps } from '../../nodes/replay.ts';
import { issueReplay } from './replay-routes.ts';
import type { WorkProducer } from './submission-routes.ts';

export interface RecoveryDeps extends ReplayLoadDeps {
  readonly results: ResultStore;
  readonly transactions: Pick<TransactionStore, 'get' | 'addResend'>;
  readonly producer: WorkProducer;
  readonly lists: Pick<RecordLists, 'transactions'>;
  readonly store: RecoveryStore;
  readonly logger: Logger;
  readonly retentionSeconds?: number;
  readonly now?: () => Micros;
}

/** Transactions examined at once (each reads its results and plans its replay). */
const CONCURRENCY = 8;
/** Rows per page of the transaction projection. */
const PAGE = 100;
/** Progress is written this often. */
const PROGRESS_MS = 500;

export class RecoveryRunner {
  private readonly now: () => Micros;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(private readonly deps: RecoveryDeps) {
    this.now = deps.now ?? (() => Date.now() * 1000);
  }

  /** Records a new run and starts it in the background; returns the run as first written. */
  async start(organizationId: string, requestedBy: string | null, request: RecoveryRequest): Promise<RecoveryRun> {
    const at = this.now();
    const run: RecoveryRun = { organizationId, id: newId(Math.floor(at / 1000)), request, status: 'running', counts: emptyCounts(), error: null, requestedBy, createdAt: at, updatedAt: at, finishedAt: null };
    await this.deps.store.putRun(run);
    const p = this.execute(run).finally(() => this.running.delete(p));
    this.running.add(p);
    return run;
  }

  /** Waits for the runs of this process to end (tests), or stops them (shutdown: they show `abandoned`). */
  async close(stop = true): Promise<void> {
    this.stopped = stop;
    await Promise.allSettled([...this.running]);
  }

  private async execute(run: RecoveryRun): Promise<void> {
    const counts: RecoveryCounts = run.counts;
    const log = this.deps.logger.child({ recovery: run.id });
    let lastWrite = 0;
    const progress = async (force = false): Promise<void> => {
      if (!force && Date.now() - lastWrite < PROGRESS_MS) return;
      lastWrite = Date.now();
      await this.deps.store.putRun({ ...run, counts, updatedAt: this.now() });
    };
    try {
      const ids = await this.candidates(run.organizationId, run.request);
      counts.matched = ids.length;
      await progress(true);
      const gate = rateGate(run.request.ratePerSecond);
      await eachLimit(
        ids,
        CONCURRENCY,
        async (id) => {
          try {
            await this.one(run, id, counts, gate);
          } catch (err) {
            counts.errors++;
            log.warn({ event: 'recovery:item_failed', transactionId: id, err }, 'a replay of the recovery could not be started; a later run takes it up');
          }
          counts.examined++;
          await progress();
        },
        () => this.stopped,
      );
      if (this.stopped) return; // abandoned: the row keeps `running` and ages into `abandoned`
      const end = this.now();
      await this.deps.store.putRun({ ...run, counts, status: 'done', updatedAt: end, finishedAt: end });
      log.info({ event: 'recovery:done', counts }, 'recovery run finished');
    } catch (err) {
      log.error({ event: 'recovery:failed', err }, 'recovery run failed');
      const end = this.now();
      await this.deps.store
        .putRun({ ...run, counts, status: 'failed', error: 'A store or the broker failed during the run; run it again to take up what is left.', updatedAt: end, finishedAt: end })
        .catch(() => undefined);
    }
  }

  /** The failed transactions of the filter, oldest first. */
  private async candidates(organizationId: string, request: RecoveryRequest): Promise<string[]> {
    const f = request.filter;
    const filters: TransactionFilters = {
      status: 'error',
      ...(f.partner === undefined ? {} : { partner: f.partner }),
      ...(f.direction === undefined ? {} : { direction: f.direction }),
      ...(f.since === undefined ? {} : { since: f.since }),
      ...(f.until === undefined ? {} : { until: f.until }),
    };
    const ids: string[] = [];
    let before: { createdAt: Micros; id: string } | null = null;
    for (;;) {
      const page = await this.deps.lists.transactions(organizationId, filters, before, PAGE);
      for (const r of page.rows) ids.push(r.id);
      const last = page.rows.at(-1);
      if (!page.more || !last) break;
      before = { createdAt: last.createdAt, id: last.id };
    }
    return ids.reverse();
  }

  private async one(run: RecoveryRun, id: string, counts: RecoveryCounts, gate: () => Promise<void>): Promise<void> {
    const org = run.organizationId;
    const t = await this.deps.transactions.get(org, id);
    if (!t) {
      counts.skipped.not_a_delivery_failure++;
      return;
    }
    const decision = decide(t, await this.deps.results.byTransaction(org, t.traceGuid, t.id), run.request.filter);
    if (!decision.recover) {
      counts.skipped[decision.reason]++;
      return;
    }
    const plan = planReplay(await replayFacts(this.deps, decision.kind, t), this.deps.retentionSeconds);
    if (plan instanceof Error) {
      counts.skipped.not_replayable++;
      return;
    }
    if (run.request.dryRun) {
      counts.started++;
      return;
    }
    const mark = { organizationId: org, transactionId: t.id, failureResultId: decision.failure.id, commandId: recoveryCommandId(org, t.id, decision.failure.id), attempt: t.resendCount + 2, recoveryId: run.id, issued: false, createdAt: this.now() };
    const claim = await this.deps.store.claim(mark);
    let issue = mark;
    if (!claim.claimed) {
      const e = claim.existing;
      // issued, or being issued by another run right now: nothing to do
      if (e.issued || this.now() - e.createdAt < STALE_CLAIM_US) {
        counts.skipped.already_recovered++;
        return;
      }
      issue = e; // claimed by a run that stopped before issuing: the same command, issued now
    }
    await gate();
    await this.issue(t, decision.kind, issue, run.requestedBy);
    await this.deps.store.issued(issue);
    counts.started++;
  }

  private async issue(t: StoredTransaction, kind: 'resend' | 'redeliver', mark: { commandId: string; attempt: number }, requestedBy: string | null): Promise<void> {
    await issueReplay(this.deps, t, kind, { commandId: mark.commandId, attempt: mark.attempt, requestedBy, at: this.now() });
  }
}

/** At most `perSecond` passes a second, evenly spaced (shared by the run's workers). */
export function rateGate(perSecond: number, clock: () => number = () => performance.now(), sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms))): () => Promise<void> {
  const gap = 1000 / perSecond;
  let nextAt = -Infinity;
  return async () => {
    const now = clock();
    const at = Math.max(now, nextAt);
    nextAt = at + gap;
    if (at > now) await sleep(at - now);
  };
}

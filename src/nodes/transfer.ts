/**
 * The one node shape of every transfer to a system outside the service (webhook, sftp_upload,
 * as2_send): calls are kept in flight (in-flight.ts), so a receiver or server that is slow or
 * never answers holds back no other trace on its partition; each attempt is bounded by the retry
 * policy's per-attempt timeout; its outcome is one `TransferAttempt`, and the step schedules the
 * next attempt through ../retry.ts.
 */
import { DEFAULT_RETRY_POLICY, retryPolicyOf, type RetryPolicy, type RetrySettings, type TransferAttempt } from '../domain/retry-policy.ts';
import type { NodeService } from '../domain/node-services.ts';
import { inFlightNode, type InFlightOptions } from './in-flight.ts';
import type { ItemHandler, NodeModule } from './node.ts';
import type { NodeDeps } from './ports.ts';

/** A transfer node: calls in flight, at most `concurrency` at once in the process. */
export function transferNode(service: NodeService, deps: NodeDeps, handleOne: ItemHandler, opts: InFlightOptions = {}): NodeModule {
  return inFlightNode(service, deps, handleOne, opts);
}

/** The policy of a webhook or connection: its own `retry` settings over the deployment's. */
export function policyFor(deps: NodeDeps, own: RetrySettings | null | undefined): RetryPolicy {
  return retryPolicyOf(deps.retry ?? DEFAULT_RETRY_POLICY, own);
}

/**
 * `call` bounded by `timeoutMs`: when it has not settled by then, the attempt counts as a
 * retryable `timeout` (the call itself may still end later; its outcome is then ignored, and
 * the retry is idempotent: the same file, the same Message-ID). `timedOut` builds the outcome.
 */
export async function withinAttempt<T>(call: Promise<T>, timeoutMs: number, timedOut: (ms: number) => T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(timedOut(timeoutMs)), timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([call, limit]);
  } finally {
    clearTimeout(timer);
  }
}

/** The outcome of an attempt that took longer than the policy allows. */
export function attemptTimedOut(ms: number): TransferAttempt {
  return { kind: 'retryable', reason: `no answer within ${ms} ms (the attempt's timeout)` };
}

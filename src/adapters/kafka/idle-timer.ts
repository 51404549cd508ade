/**
 * kafkajs 2.2.4's RequestQueue (one per broker connection) re-arms a timer after every check of
 * its pending requests, also when none is pending: `throttledUntil` starts at -1, so the delay
 * is negative, which Node runs after 1 ms (Node 24 warns: TimeoutNegativeWarning). Every
 * connection of an idle process so wakes a thousand times a second; our idle role processes
 * spent about 2% of a core each on it (docs/performance.md). Reported upstream as kafkajs
 * issues 1556, 1704 and 1751; the fix there is not released.
 *
 * `quietRequestQueues` replaces the method so that a check is scheduled only while requests
 * wait: a request enqueued later schedules its own check, and a request that completes checks
 * the queue (RequestQueue's own contract). Applied once per process, before any client exists.
 */
import { createRequire } from 'node:module';

interface RequestQueueLike {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  checkPendingRequests(): void;
  scheduleCheckPendingRequests(): void;
}

/** kafkajs's interval between checks of requests held back by a broker's throttle. */
const CHECK_PENDING_MS = 10;

let applied = false;

/** The schedule of a queue's next check: null when nothing waits. */
export function nextCheckIn(pending: number, throttledUntil: number, now: number): number | null {
  if (pending === 0) return null;
  const throttled = throttledUntil - now;
  return throttled > 0 ? throttled : CHECK_PENDING_MS;
}

export function quietRequestQueues(): void {
  if (applied) return;
  applied = true;
  const require = createRequire(import.meta.url);
  const RequestQueue = require('kafkajs/src/network/requestQueue/index.js') as { prototype: RequestQueueLike };
  RequestQueue.prototype.scheduleCheckPendingRequests = function (this: RequestQueueLike): void {
    if (this.throttleCheckTimeoutId) return;
    const delay = nextCheckIn(this.pending.length, this.throttledUntil, Date.now());
    if (delay === null) return;
    this.throttleCheckTimeoutId = setTimeout(() => {
      this.throttleCheckTimeoutId = null;
      this.checkPendingRequests();
    }, delay);
  };
}

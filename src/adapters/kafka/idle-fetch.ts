/**
 * kafkajs 2.2.4 fetches with one `maxWaitTime` and one `minBytes` for a consumer's whole life. A
 * consumer that keeps its wait short (the feed sequencer waits 50 ms, so an entry's `createdAt`
 * is not held back; the delay tiers' consumer 100 ms, so a partition resumed at its due time is
 * fetched soon) so asks the broker 10 to 20 times a second while nothing arrives: an idle
 * pipeline spent more on those empty fetches, in its own process and in the broker, than on
 * anything else (docs/performance.md).
 *
 * `waitLongerWhenIdle(groupId, idleWaitMs)` marks a consumer group whose fetches adapt: once its
 * fetches from a broker have brought nothing for `idleWaitMs` (as long as a step consumer's fetch
 * waits), while none of the group's partitions is paused, the next fetch from that broker asks
 * for one byte and waits up to `idleWaitMs`. The broker answers as soon as a message arrives, so
 * the first message after a quiet spell is handed over at once rather than at the end of a short
 * wait; the fetch after a message uses the consumer's own wait and size again, and gathers as
 * before. The gaps of a busy pipeline keep the consumer's own settings: fetched at once after
 * every gap of half a second, the first requests of each burst made a batch of their own, and
 * the feed sequencer lost throughput under load (docs/performance.md, twelfth pass). A paused
 * partition keeps the short wait: kafkajs fetches a resumed partition only when the fetch in
 * progress returns. kafkajs runs one fetch at a time per broker and hands its batches over before
 * the next, so no batch handler can pause a partition while an idle fetch from its broker is
 * under way.
 *
 * The method is replaced once per process (`adaptIdleFetches`, before any consumer exists); a
 * group that was not marked fetches exactly as kafkajs does.
 */
import { createRequire } from 'node:module';

interface BatchLike {
  isEmpty(): boolean;
}

interface ConsumerGroupLike {
  groupId: string;
  minBytes: number;
  maxWaitTime: number;
  subscriptionState: { paused(): { topic: string; partitions: number[] }[] };
  fetch: (this: ConsumerGroupLike, nodeId: string) => Promise<BatchLike[]>;
  [FETCH_STATE]?: FetchState;
}

/** A group's own fetch settings, and since when each broker's fetches have brought nothing. */
interface FetchState {
  readonly minBytes: number;
  readonly maxWaitTime: number;
  readonly quietSince: Map<string, number>;
}

const FETCH_STATE = Symbol('tdx.idleFetch');

/** Groups marked by `waitLongerWhenIdle`: group id → the idle fetch's wait (ms). */
const idleWaits = new Map<string, number>();

let applied = false;

/** What one fetch asks the broker for. */
export interface FetchSettings {
  readonly minBytes: number;
  readonly maxWaitTime: number;
}

/**
 * The settings of a group's next fetch from a broker: its own, unless that broker's fetches have
 * brought nothing for `idleWaitMs` (`quietForMs`; undefined when the last one brought messages)
 * and no partition is paused; then one byte, waited for up to `idleWaitMs` (never less than its
 * own wait).
 */
export function nextFetch(own: FetchSettings, quietForMs: number | undefined, anyPaused: boolean, idleWaitMs: number | undefined): FetchSettings {
  if (idleWaitMs === undefined || quietForMs === undefined || quietForMs < idleWaitMs || anyPaused) return own;
  return { minBytes: 1, maxWaitTime: Math.max(idleWaitMs, own.maxWaitTime) };
}

/** Marks group `groupId`'s fetches as adaptive (see the module's comment); `forget` undoes it. */
export function waitLongerWhenIdle(groupId: string, idleWaitMs: number): { forget(): void } {
  idleWaits.set(groupId, idleWaitMs);
  return { forget: () => void idleWaits.delete(groupId) };
}

export function adaptIdleFetches(): void {
  if (applied) return;
  applied = true;
  const require = createRequire(import.meta.url);
  const ConsumerGroup = require('kafkajs/src/consumer/consumerGroup.js') as { prototype: ConsumerGroupLike };
  const original = ConsumerGroup.prototype.fetch;
  ConsumerGroup.prototype.fetch = async function (this: ConsumerGroupLike, nodeId: string): Promise<BatchLike[]> {
    const idleWaitMs = idleWaits.get(this.groupId);
    if (idleWaitMs === undefined && this[FETCH_STATE] === undefined) return original.call(this, nodeId);
    const state = (this[FETCH_STATE] ??= { minBytes: this.minBytes, maxWaitTime: this.maxWaitTime, quietSince: new Map<string, number>() });
    const anyPaused = this.subscriptionState.paused().some((t) => t.partitions.length > 0);
    const since = state.quietSince.get(nodeId);
    const next = nextFetch(state, since === undefined ? undefined : Date.now() - since, anyPaused, idleWaitMs);
    this.minBytes = next.minBytes;
    this.maxWaitTime = next.maxWaitTime;
    const started = Date.now();
    const batches = await original.call(this, nodeId);
    if (!batches.every((b) => b.isEmpty())) state.quietSince.delete(nodeId);
    else if (since === undefined) state.quietSince.set(nodeId, started);
    return batches;
  };
}

/**
 * The topic catalog: every topic the service uses (without the configured prefix) and the
 * codec of its values. topics/<name>.json holds each topic's operational definition
 * (partitions, retention, cleanup policy) and names the same schema; a unit test keeps the
 * two in step, and schemas/<codec>.avsc equal to the codec's schema.
 */
import { NODE_SERVICES, type NodeService } from '../domain/node-services.ts';
import type { Codec } from './codec.ts';
import * as stage from './stage.v1.ts';
import * as resultEvent from './result-event.v1.ts';
import * as transactionChange from './transaction-change.v1.ts';
import * as feedRequest from './feed-request.v1.ts';
import * as logEvent from './log-event.v1.ts';
import * as feedEntry from './feed-entry.v1.ts';
import * as replayCommand from './replay-command.v1.ts';
import * as delayed from './delayed.v1.ts';
import * as deadLetter from './dead-letter.v1.ts';
import * as recordEvents from './record-events.v1.ts';

export type StageTopic = `stage.${NodeService}`;
export type DelayTopic = `delay.${(typeof delayed.DELAY_TIERS_SECONDS)[number]}s`;

/** Names of the non-stage topics. */
export const TOPICS = {
  records: 'events.records',
  results: 'events.results',
  transactions: 'events.transactions',
  logs: 'events.logs',
  feed: 'feed',
  feedRequests: 'events.feed',
  replay: 'commands.replay',
  deadLetter: 'deadletter',
} as const;

/** The stage topic of a node service. */
export function stageTopic(service: NodeService): StageTopic {
  return `stage.${service}`;
}

/** Every codec, one per schema name (`<schema>.v<version>`). */
export const ALL_CODECS: readonly Codec<unknown>[] = [
  stage.codec,
  resultEvent.codec,
  transactionChange.codec,
  feedRequest.codec,
  logEvent.codec,
  feedEntry.codec,
  replayCommand.codec,
  delayed.codec,
  deadLetter.codec,
  recordEvents.codec,
] as Codec<unknown>[];

/** Topic name (without prefix) → codec of its values. */
export const TOPIC_CODECS: ReadonlyMap<string, Codec<unknown>> = new Map<string, Codec<unknown>>([
  ...NODE_SERVICES.map((s) => [stageTopic(s), stage.codec as Codec<unknown>] as const),
  [TOPICS.records, recordEvents.codec],
  [TOPICS.results, resultEvent.codec],
  [TOPICS.transactions, transactionChange.codec],
  [TOPICS.feedRequests, feedRequest.codec],
  [TOPICS.logs, logEvent.codec],
  [TOPICS.feed, feedEntry.codec],
  [TOPICS.replay, replayCommand.codec],
  ...delayed.DELAY_TIERS_SECONDS.map((s) => [`delay.${s}s`, delayed.codec as Codec<unknown>] as const),
  [TOPICS.deadLetter, deadLetter.codec],
]);

/** Registry subject of a topic's values (TopicNameStrategy): `<prefix><topic>-value`. */
export function valueSubject(prefix: string, topic: string): string {
  return `${prefix}${topic}-value`;
}

/**
 * Reads topics/*.json (one file per topic) and creates or aligns the topics on the cluster.
 *
 * A definition: `name` (without prefix, equal to the file name), `partitions`, `key`,
 * `valueSchema` (a codec name, schemas/<valueSchema>.avsc), `config` (`retention.ms`,
 * `cleanup.policy`) and documentation fields. docs/topics.md describes every topic. A topic with
 * `"recordRetention": true` (the public feed) keeps its messages as long as the records they
 * describe: its `retention.ms` is the service's retention (TDX_RETENTION_SECONDS), the file's
 * value being the default (docs/retention.md).
 */
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import kafkajs, { type Admin, type ITopicConfig } from 'kafkajs';
import { TdxError } from '../../errors.ts';
import { TOPIC_CODECS } from '../../wire/topics.ts';

export interface TopicDefinition {
  readonly name: string;
  readonly description: string;
  readonly partitions: number;
  readonly key: string;
  readonly valueSchema: string;
  readonly config: Readonly<Record<string, string>>;
  readonly public?: boolean;
  /** `retention.ms` follows the records' retention (EnsureTopicsOptions.recordRetentionMs). */
  readonly recordRetention?: boolean;
}

/** The repository's topics/ folder. */
export const TOPICS_DIR = fileURLToPath(new URL('../../../topics/', import.meta.url));

const NAME_RE = /^[a-z0-9][a-z0-9._-]*$/;
// kafkajs is CommonJS; Node sees only some of its named exports.
const { ConfigResourceTypes } = kafkajs;
const CLEANUP = ['delete', 'compact', 'compact,delete', 'delete,compact'];

function invalid(file: string, problem: string): TdxError {
  return new TdxError('config_file_invalid', `${file}: ${problem}`, { details: { file, problem } });
}

/** Validates one parsed definition file. */
export function parseTopicDefinition(file: string, raw: unknown): TopicDefinition {
  if (typeof raw !== 'object' || raw === null) throw invalid(file, 'not a JSON object');
  const o = raw as Record<string, unknown>;
  const name = o['name'];
  if (typeof name !== 'string' || !NAME_RE.test(name)) throw invalid(file, `name ${JSON.stringify(name)} is not a valid topic name`);
  if (path.basename(file, '.json') !== name) throw invalid(file, `name "${name}" differs from the file name`);
  const partitions = o['partitions'];
  if (typeof partitions !== 'number' || !Number.isInteger(partitions) || partitions < 1) throw invalid(file, 'partitions must be a positive integer');
  const valueSchema = o['valueSchema'];
  if (typeof valueSchema !== 'string') throw invalid(file, 'valueSchema is missing');
  const codec = TOPIC_CODECS.get(name);
  if (!codec) throw invalid(file, `no codec handles topic "${name}" (src/wire/topics.ts)`);
  if (codec.name !== valueSchema) throw invalid(file, `valueSchema "${valueSchema}" differs from the codec "${codec.name}"`);
  const config = o['config'];
  if (typeof config !== 'object' || config === null) throw invalid(file, 'config is missing');
  const cfg = config as Record<string, unknown>;
  for (const [k, v] of Object.entries(cfg)) if (typeof v !== 'string') throw invalid(file, `config.${k} must be a string`);
  if (!/^-?\d+$/.test(String(cfg['retention.ms']))) throw invalid(file, 'config."retention.ms" must be an integer string');
  if (!CLEANUP.includes(String(cfg['cleanup.policy']))) throw invalid(file, `config."cleanup.policy" must be one of ${CLEANUP.join(', ')}`);
  return {
    name,
    description: typeof o['description'] === 'string' ? o['description'] : '',
    partitions,
    key: typeof o['key'] === 'string' ? o['key'] : 'traceGuid',
    valueSchema,
    config: cfg as Record<string, string>,
    ...(o['public'] === true ? { public: true } : {}),
    ...(o['recordRetention'] === true ? { recordRetention: true } : {}),
  };
}

/** Every definition of `dir`, sorted by name. */
export async function readTopicDefinitions(dir: string = TOPICS_DIR): Promise<TopicDefinition[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.json')).sort();
  const defs: TopicDefinition[] = [];
  for (const f of files) {
    const text = await readFile(path.join(dir, f), 'utf8');
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw invalid(f, `not JSON (${(err as Error).message})`);
    }
    defs.push(parseTopicDefinition(f, raw));
  }
  return defs;
}

export interface EnsureTopicsOptions {
  readonly prefix: string;
  readonly replicationFactor: number;
  readonly partitionsOverride: number | undefined;
  /**
   * `retention.ms` of the topics marked `recordRetention` (config.cassandra.retentionSeconds ×
   * 1000); absent: the definition's value.
   */
  readonly recordRetentionMs?: number;
  /** `min.insync.replicas` of every topic (config.kafka.minInsyncReplicas); absent: the broker's default. */
  readonly minInsyncReplicas?: number | undefined;
}

/** Longest segment of a `recordRetention` topic: Kafka deletes whole segments, so a message outlives its retention by at most this. */
export const RECORD_SEGMENT_MS = 86_400_000;

/**
 * The configuration a topic is created or aligned with: the definition's, and for a topic marked
 * `recordRetention`, `retention.ms` = the records' retention and `segment.ms` at most a day
 * (Kafka removes a segment once its newest message is past `retention.ms`).
 */
export function topicConfig(d: TopicDefinition, opts: Pick<EnsureTopicsOptions, 'recordRetentionMs' | 'minInsyncReplicas'>): Record<string, string> {
  const isr: Record<string, string> = opts.minInsyncReplicas === undefined ? {} : { 'min.insync.replicas': String(opts.minInsyncReplicas) };
  if (!d.recordRetention || opts.recordRetentionMs === undefined) return { ...d.config, ...isr };
  return { ...d.config, 'retention.ms': String(opts.recordRetentionMs), 'segment.ms': String(Math.min(opts.recordRetentionMs, RECORD_SEGMENT_MS)), ...isr };
}

/** One line of what `ensureTopics` did. */
export interface TopicOutcome {
  readonly topic: string;
  readonly action: 'created' | 'unchanged' | 'partitions-added' | 'config-updated';
  readonly detail?: string;
}

function isUnknownTopic(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'UNKNOWN_TOPIC_OR_PARTITION';
}

/** Waits (up to 30 s, at the migration, never in a consumer) until the broker describes `topics`. */
async function metadataOf(admin: Admin, topics: readonly string[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await admin.fetchTopicMetadata({ topics: [...topics] });
      return;
    } catch (err) {
      if (!isUnknownTopic(err) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * Creates `topics` and resolves once the broker describes them with their leaders. A KRaft broker
 * can answer the metadata request that waits for the new topics' leaders with "does not host
 * this topic-partition" before it has caught up with their creation (seen with several
 * migrations at once, and beside a busy test run); the topics exist then, so their metadata is
 * awaited instead.
 */
export async function createTopicsReady(admin: Admin, topics: ITopicConfig[]): Promise<void> {
  try {
    await admin.createTopics({ waitForLeaders: true, topics });
  } catch (err) {
    if (!isUnknownTopic(err)) throw err;
    await metadataOf(
      admin,
      topics.map((t) => t.topic),
    );
  }
}

/**
 * Creates missing topics; for existing ones, adds partitions when the definition has more and
 * aligns `retention.ms` and `cleanup.policy`. Never deletes or shrinks anything.
 */
export async function ensureTopics(admin: Admin, defs: readonly TopicDefinition[], opts: EnsureTopicsOptions): Promise<TopicOutcome[]> {
  const partitionsOf = (d: TopicDefinition): number => opts.partitionsOverride ?? d.partitions;
  const existing = new Set(await admin.listTopics());
  const out: TopicOutcome[] = [];
  const missing = defs.filter((d) => !existing.has(opts.prefix + d.name));
  if (missing.length > 0) {
    await createTopicsReady(
      admin,
      missing.map((d) => ({
        topic: opts.prefix + d.name,
        numPartitions: partitionsOf(d),
        replicationFactor: opts.replicationFactor,
        configEntries: Object.entries(topicConfig(d, opts)).map(([name, value]) => ({ name, value })),
      })),
    );
    for (const d of missing) out.push({ topic: opts.prefix + d.name, action: 'created', detail: `${partitionsOf(d)} partitions` });
  }
  const present = defs.filter((d) => existing.has(opts.prefix + d.name));
  if (present.length === 0) return out;
  const meta = await admin.fetchTopicMetadata({ topics: present.map((d) => opts.prefix + d.name) });
  const configs = await admin.describeConfigs({
    includeSynonyms: false,
    resources: present.map((d) => ({ type: ConfigResourceTypes.TOPIC, name: opts.prefix + d.name, configNames: Object.keys(topicConfig(d, opts)) })),
  });
  for (const d of present) {
    const topic = opts.prefix + d.name;
    const have = meta.topics.find((t) => t.name === topic)?.partitions.length ?? 0;
    const want = partitionsOf(d);
    let changed = false;
    if (have < want) {
      await admin.createPartitions({ topicPartitions: [{ topic, count: want }] });
      out.push({ topic, action: 'partitions-added', detail: `${have} → ${want}` });
      changed = true;
    }
    const entries = configs.resources.find((r) => r.resourceName === topic)?.configEntries ?? [];
    const config = topicConfig(d, opts);
    const drift = Object.entries(config).filter(([k, v]) => entries.find((e) => e.configName === k)?.configValue !== v);
    if (drift.length > 0) {
      await admin.alterConfigs({
        validateOnly: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: Object.entries(config).map(([name, value]) => ({ name, value })) }],
      });
      out.push({ topic, action: 'config-updated', detail: drift.map(([k, v]) => `${k}=${v}`).join(', ') });
      changed = true;
    }
    if (!changed) out.push({ topic, action: 'unchanged' });
  }
  return out;
}

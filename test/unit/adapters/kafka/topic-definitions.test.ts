import { describe, expect, it } from 'vitest';
import { RECORD_SEGMENT_MS, parseTopicDefinition, readTopicDefinitions, topicConfig } from '../../../../src/adapters/kafka/topic-definitions.ts';
import { TOPIC_CODECS } from '../../../../src/wire/topics.ts';
import { NODE_SERVICES } from '../../../../src/domain/node-services.ts';

describe('topics/', () => {
  it('defines exactly the topics the codec catalog knows', async () => {
    const defs = await readTopicDefinitions();
    expect(defs.map((d) => d.name).sort()).toEqual([...TOPIC_CODECS.keys()].sort());
  });

  it('has a stage topic per node service, and the feed is public', async () => {
    const names = new Set((await readTopicDefinitions()).map((d) => d.name));
    for (const s of NODE_SERVICES) expect(names.has(`stage.${s}`)).toBe(true);
    const feed = (await readTopicDefinitions()).find((d) => d.name === 'feed');
    expect(feed?.public).toBe(true);
  });

  it('gives every topic a valid name, a schema, partitions, retention and cleanup policy', async () => {
    for (const d of await readTopicDefinitions()) {
      expect(d.name).toMatch(/^[a-z0-9][a-z0-9._-]*$/);
      expect(TOPIC_CODECS.get(d.name)?.name).toBe(d.valueSchema);
      expect(d.partitions).toBeGreaterThanOrEqual(1);
      expect(Number(d.config['retention.ms'])).toBeGreaterThan(0);
      expect(d.config['cleanup.policy']).toBe('delete');
    }
  });

  it('keeps the public feed as long as the records (TDX_RETENTION_SECONDS), and no other topic', async () => {
    const defs = await readTopicDefinitions();
    expect(defs.filter((d) => d.recordRetention).map((d) => d.name)).toEqual(['feed']);
    const feed = defs.find((d) => d.name === 'feed')!;
    expect(topicConfig(feed, { recordRetentionMs: 12_000 })).toEqual({ 'retention.ms': '12000', 'segment.ms': '12000', 'cleanup.policy': 'delete' });
    expect(topicConfig(feed, { recordRetentionMs: 3_888_000_000 })).toMatchObject({ 'retention.ms': '3888000000', 'segment.ms': String(RECORD_SEGMENT_MS) });
    expect(topicConfig(feed, {})).toEqual(feed.config);
    const logs = defs.find((d) => d.name === 'events.logs')!;
    expect(topicConfig(logs, { recordRetentionMs: 12_000 })).toEqual(logs.config);
  });

  const good = { name: 'feed', partitions: 3, valueSchema: 'feed-entry.v1', config: { 'retention.ms': '1000', 'cleanup.policy': 'delete' } };
  it.each([
    ['a name that differs from the file', { ...good, name: 'events.logs' }, /differs from the file name/],
    ['an invalid name', { ...good, name: 'Feed!' }, /not a valid topic name/],
    ['zero partitions', { ...good, partitions: 0 }, /partitions/],
    ['a schema the codec does not use', { ...good, valueSchema: 'stage.v1' }, /differs from the codec/],
    ['a non-numeric retention', { ...good, config: { 'retention.ms': 'forever', 'cleanup.policy': 'delete' } }, /retention\.ms/],
    ['an unknown cleanup policy', { ...good, config: { 'retention.ms': '1', 'cleanup.policy': 'keep' } }, /cleanup\.policy/],
  ])('rejects %s, naming the file', (_label, raw, message) => {
    expect(() => parseTopicDefinition('feed.json', raw)).toThrowError(
      expect.objectContaining({ code: 'config_file_invalid', message: expect.stringMatching(message) as string, details: expect.objectContaining({ file: 'feed.json' }) }) as Error,
    );
  });

  it('rejects a topic no codec handles', () => {
    expect(() => parseTopicDefinition('nope.json', { ...good, name: 'nope' })).toThrowError(/no codec handles topic "nope"/);
  });
});

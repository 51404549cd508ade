/**
 * Kafka and schema registry isolation: every test gets its own topic prefix (and consumer
 * group prefix) and its own subject prefix; what it created is deleted when it finishes.
 */
import kafkajs, { type Admin, type Kafka } from 'kafkajs';
import { onTestFinished } from 'vitest';
import { stackEnv, uniqueId } from './env.ts';

let shared: Kafka | undefined;

/** A kafkajs client for the test stack (created on first use, no connection until used). */
export function testKafka(): Kafka {
  shared ??= new kafkajs.Kafka({
    clientId: `tdx-test-${process.pid}`,
    brokers: stackEnv().kafkaBrokers,
    logLevel: kafkajs.logLevel.NOTHING,
  });
  return shared;
}

/** Whether `err` (or an error it was caused by) is Kafka's UNKNOWN_TOPIC_OR_PARTITION. */
function unknownTopic(err: unknown): boolean {
  for (let e = err as { type?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e) if (e.type === 'UNKNOWN_TOPIC_OR_PARTITION') return true;
  return false;
}

/**
 * Deletes `topics`. A topic the broker no longer has counts as deleted: a listing can still name
 * a topic whose deletion is under way, and kafkajs then retries the whole request until it
 * gives up, so after that answer the topics are deleted one by one, the gone ones skipped.
 */
export async function deleteTopicsIfPresent(admin: Admin, topics: readonly string[]): Promise<void> {
  try {
    await admin.deleteTopics({ topics: [...topics], timeout: 30_000 });
  } catch (err) {
    if (!unknownTopic(err)) throw err;
    for (const topic of topics) {
      await admin.deleteTopics({ topics: [topic], timeout: 30_000 }).catch((e: unknown) => {
        if (!unknownTopic(e)) throw e;
      });
    }
  }
}

/**
 * A topic prefix such as `t1a2b3c4d5e6f.` for this test. Topics and consumer groups whose
 * names start with it are deleted when the test finishes.
 */
export function createTestTopicPrefix(): string {
  const prefix = `${uniqueId()}.`;
  onTestFinished(async () => {
    const admin = testKafka().admin();
    try {
      await admin.connect();
      const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
      if (topics.length > 0) await deleteTopicsIfPresent(admin, topics);
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
      if (groups.length > 0) await admin.deleteGroups(groups).catch(() => undefined);
    } finally {
      await admin.disconnect();
    }
  });
  return prefix;
}

async function registryCall(method: string, path: string): Promise<unknown> {
  const res = await fetch(`${stackEnv().schemaRegistryUrl}${path}`, {
    method,
    headers: { accept: 'application/vnd.schemaregistry.v1+json' },
    signal: AbortSignal.timeout(10_000),
  });
  if (!res.ok && res.status !== 404) throw new Error(`${method} ${path}: HTTP ${res.status} ${await res.text()}`);
  return res.status === 404 ? undefined : res.json();
}

/**
 * A subject prefix for this test (e.g. `t1a2b3c4d5e6f.`); subjects starting with it are deleted
 * (soft, then permanently) when the test finishes.
 */
export function createTestSubjectPrefix(): string {
  const prefix = `${uniqueId()}.`;
  onTestFinished(async () => {
    const subjects = ((await registryCall('GET', '/subjects')) as string[] | undefined) ?? [];
    for (const s of subjects.filter((x) => x.startsWith(prefix))) {
      await registryCall('DELETE', `/subjects/${encodeURIComponent(s)}`);
      await registryCall('DELETE', `/subjects/${encodeURIComponent(s)}?permanent=true`);
    }
  });
  return prefix;
}

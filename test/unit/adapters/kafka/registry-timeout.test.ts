import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import { createSchemaRegistry } from '../../../../src/adapters/kafka/registry.ts';
import { loadConfig } from '../../../../src/config.ts';

/** A server that accepts connections and never answers. */
const sockets: Socket[] = [];
const silent: Server = createServer((s) => void sockets.push(s));
const port = await new Promise<number>((resolve) => silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)));
afterAll(() => {
  for (const s of sockets) s.destroy();
  silent.close();
});

describe('schema registry client', () => {
  it('gives up on a registry that accepts the connection and never answers, instead of waiting forever', async () => {
    const config = loadConfig({ SCHEMA_REGISTRY_URL: `http://127.0.0.1:${port}` });
    const registry = createSchemaRegistry(config, 200);
    const started = Date.now();
    const err = await registry.getRegistryIdBySchema('s', { type: SchemaType.AVRO, schema: '{"type":"string"}' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error).message)).toMatch(/timeout/i);
    // three tries of 200 ms and the client's short pauses between them
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sockets.length).toBeGreaterThan(0);
  });
});

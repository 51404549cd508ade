import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { SchemaType } from '@kafkajs/confluent-schema-registry';
import { createSchemaRegistry, registerSubject } from '../../../../src/adapters/kafka/registry.ts';
import { loadConfig } from '../../../../src/config.ts';

/** A server that accepts connections and never answers. */
const sockets: Socket[] = [];
const silent: Server = createServer((s) => void sockets.push(s));
const port = await new Promise<number>((resolve) => silent.listen(0, '127.0.0.1', () => resolve((silent.address() as { port: number }).port)));

/** A registry whose answers the test scripts, one per request in arrival order: a status and body, or `null` for no answer at all. */
type Answer = { status: number; body: unknown } | null;
const script: Answer[] = [];
const seen: string[] = [];
const held: ServerResponse[] = [];
const scripted = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
  req.resume();
  req.on('end', () => {
    seen.push(`${req.method} ${req.url}`);
    const answer = script.shift();
    if (answer === null) return void held.push(res);
    const a = answer ?? { status: 500, body: { error_code: 50001, message: 'unscripted' } };
    res.writeHead(a.status, { 'content-type': 'application/vnd.schemaregistry.v1+json' }).end(JSON.stringify(a.body));
  });
});
const scriptedPort = await new Promise<number>((resolve) => scripted.listen(0, '127.0.0.1', () => resolve((scripted.address() as { port: number }).port)));

afterAll(() => {
  for (const s of sockets) s.destroy();
  silent.close();
  for (const r of held) r.destroy();
  scripted.closeAllConnections();
  scripted.close();
});

const schema = { type: SchemaType.AVRO, schema: '{"type":"record","name":"R","fields":[]}' } as const;
const scriptedRegistry = () => createSchemaRegistry(loadConfig({ SCHEMA_REGISTRY_URL: `http://127.0.0.1:${scriptedPort}` }), 300);
const reset = (...answers: Answer[]) => {
  seen.length = 0;
  script.length = 0;
  script.push(...answers);
};

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
    expect(sockets.length).toBe(3);
  });

  it('tries a content lookup (a POST) again when its answer never came', async () => {
    reset(null, { status: 200, body: { subject: 's', id: 7, version: 1, schema: '"string"' } });
    expect(await scriptedRegistry().getRegistryIdBySchema('s', schema)).toBe(7);
    expect(seen).toEqual(['POST /subjects/s', 'POST /subjects/s']);
  });

  it('tries a registration again after a 5xx answer', async () => {
    reset({ status: 200, body: { compatibilityLevel: 'BACKWARD' } }, { status: 503, body: { error_code: 50003, message: 'busy' } }, { status: 200, body: { id: 9 } });
    expect(await scriptedRegistry().register(schema, { subject: 's' })).toEqual({ id: 9 });
    expect(seen).toEqual(['GET /config/s', 'POST /subjects/s/versions', 'POST /subjects/s/versions']);
  });

  it("tdx migrate's registration of a subject gets through a 5xx answer on its compatibility setting", async () => {
    reset(
      { status: 503, body: { error_code: 50003, message: 'busy' } },
      { status: 404, body: { error_code: 40401, message: 'Subject not found' } },
      { status: 200, body: { compatibility: 'BACKWARD' } },
      { status: 404, body: { error_code: 40401, message: 'Subject not found' } },
      { status: 200, body: { compatibilityLevel: 'BACKWARD' } },
      { status: 200, body: { id: 5 } },
    );
    const outcome = await registerSubject(scriptedRegistry(), `http://127.0.0.1:${scriptedPort}`, 's', JSON.parse(schema.schema) as object);
    expect(outcome).toEqual({ subject: 's', id: 5, registered: true, compatibilitySet: true });
    expect(seen).toEqual(['GET /config/s', 'GET /config/s', 'PUT /config/s', 'POST /subjects/s', 'GET /config/s', 'POST /subjects/s/versions']);
  });

  it('does not try again on an answer that will not change: a 404 of a lookup', async () => {
    reset({ status: 404, body: { error_code: 40401, message: 'Subject not found' } });
    const err = await scriptedRegistry().getRegistryIdBySchema('s', schema).catch((e: unknown) => e);
    expect(String((err as Error).message)).toMatch(/not found/i);
    expect(seen).toEqual(['POST /subjects/s']);
  });
});

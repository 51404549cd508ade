/**
 * Traces of the pipeline, exported over OTLP/HTTP (JSON encoding) to
 * `$OTEL_EXPORTER_OTLP_ENDPOINT/v1/traces`. This module is loaded only when that variable is set
 * (src/roles/resources.ts imports it dynamically); otherwise no span is ever made, and a
 * consumer batch pays one undefined check.
 *
 * - A span per step: the consumer runner opens one CONSUMER span per work item it hands to a
 *   handler (name `<consumer> process`), carrying the trace GUID (`tdx.trace_guid`, the
 *   message key), the topic, partition and group, and ends it when the item was handled or given
 *   up (status error).
 * - Linked across the Kafka hops by W3C `traceparent`: the span's parent is the `traceparent`
 *   header of the message it handles; while the handler runs, every message the node emits
 *   under the same key (the trace GUID) gets the span's own `traceparent` header (WireEmitter).
 * - A message without `traceparent` (a document submitted over HTTP, SFTP or AS2) starts a
 *   trace whose id is the trace GUID's 32 hex digits, so one document is one trace.
 * - An in-house step run inline in a consumer pass (src/nodes/inline.ts) gets its own span
 *   (kind INTERNAL), named as its span on the topic path (`node:mapping process`): the child of
 *   the span of the step that emitted its work item (the pass's span, or the inline step before
 *   it); what it emits is the child of its span in turn (`emittedBy`, read by the emitter).
 * - An HTTP request of the API gets a SERVER span named by its method and route template
 *   (`POST /platform/partners/:key/edi`), never the raw path (src/http/app.ts).
 *
 * Spans are buffered and sent once a second (or every 512 spans); an export that fails is
 * dropped with a debug log line: tracing never holds back documents.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from '../../logger.ts';
import type { StepTracer } from '../../nodes/ports.ts';
import type { Effects } from '../../nodes/step.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import { emittedBy, outgoingTraceparents } from './context.ts';

/** OTLP span kinds. */
const KIND = { internal: 1, server: 2, consumer: 5 } as const;

interface SpanRecord {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  start: bigint;
  end: bigint;
  attributes: Record<string, string | number>;
  error: string | undefined;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);

/** Trace id of a trace GUID: its hex digits when it has 32 (a UUID), otherwise a random id. */
function traceIdOf(traceGuid: string | null): string {
  const hex = (traceGuid ?? '').replace(/-/g, '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(hex) && hex !== ZERO_TRACE ? hex : randomBytes(16).toString('hex');
}

const nowNanos = (): bigint => BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);

/** The spans of one batch of work items. */
export interface BatchSpans {
  /** Runs the handler so that what it emits carries these spans' `traceparent`. */
  run<R>(fn: () => Promise<R>): Promise<R>;
  /** Marks the items at these positions failed (given up). */
  fail(positions: Iterable<number>, err: unknown): void;
  /** Ends every span (once). */
  end(): void;
}

export interface ConsumeItem {
  readonly key: string | null;
  readonly headers: Readonly<Record<string, string>>;
}

export interface TracerOptions {
  readonly endpoint: string;
  readonly serviceName: string;
  readonly logger: Logger;
  /** @default 1000 */
  readonly flushIntervalMs?: number;
}

/** A SERVER span of one HTTP request, open while the request is handled. */
export interface ServerSpan {
  /** Ends it: `route` is the matched route template (undefined when no route matched). */
  end(method: string, route: string | undefined, status: number, attributes?: Record<string, string | number>): void;
}

/** The consumer that runs a pass, by the pass's outgoing map (for the spans of its inline steps). */
const passConsumer = new WeakMap<Map<string, string>, string | number>();

export class OtlpTracer implements StepTracer {
  private buffer: SpanRecord[] = [];
  private readonly url: string;
  private readonly timer: NodeJS.Timeout;
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly opts: TracerOptions) {
    this.url = `${opts.endpoint.replace(/\/+$/, '')}/v1/traces`;
    this.timer = setInterval(() => void this.flush(), opts.flushIntervalMs ?? 1000);
    this.timer.unref();
  }

  /** Opens one span per item; `attributes` are shared by all of them. */
  consume(name: string, items: readonly ConsumeItem[], attributes: Record<string, string | number>): BatchSpans {
    const start = nowNanos();
    const spans: SpanRecord[] = [];
    const outgoing = new Map<string, string>();
    for (const item of items) {
      const parent = TRACEPARENT.exec(item.headers['traceparent'] ?? '');
      const traceId = parent && parent[1] !== ZERO_TRACE ? parent[1]! : traceIdOf(item.key);
      const span: SpanRecord = {
        traceId,
        spanId: randomBytes(8).toString('hex'),
        parentSpanId: parent ? parent[2] : undefined,
        name,
        kind: KIND.consumer,
        start,
        end: 0n,
        attributes: item.key === null ? attributes : { ...attributes, 'tdx.trace_guid': item.key },
        error: undefined,
      };
      spans.push(span);
      if (item.key !== null) outgoing.set(item.key, `00-${span.traceId}-${span.spanId}-01`);
    }
    const consumer = attributes['tdx.consumer'];
    if (consumer !== undefined) passConsumer.set(outgoing, consumer);
    let ended = false;
    return {
      run: (fn) => outgoingTraceparents.run(outgoing, fn),
      fail: (positions, err) => {
        const message = err instanceof Error ? err.message : String(err);
        for (const i of positions) if (spans[i]) spans[i].error = message;
      },
      end: () => {
        if (ended) return;
        ended = true;
        const end = nowNanos();
        for (const s of spans) {
          s.end = end;
          this.buffer.push(s);
        }
        if (this.buffer.length >= 512) void this.flush();
      },
    };
  }

  /**
   * Runs one work item of an in-house step inline, in its own span: the child of the span that
   * emitted the item (an inline step before it, else the pass's span for its trace GUID); the
   * items its effects emit become children of this span.
   */
  async inline(service: string, item: StageMessage, run: () => Promise<Effects>): Promise<Effects> {
    const pass = outgoingTraceparents.getStore();
    const parent = TRACEPARENT.exec(emittedBy.get(item) ?? pass?.get(item.traceGuid) ?? '');
    const consumer = pass ? passConsumer.get(pass) : undefined;
    const span: SpanRecord = {
      traceId: parent && parent[1] !== ZERO_TRACE ? parent[1]! : traceIdOf(item.traceGuid),
      spanId: randomBytes(8).toString('hex'),
      parentSpanId: parent ? parent[2] : undefined,
      name: `node:${service} process`,
      kind: KIND.internal,
      start: nowNanos(),
      end: 0n,
      attributes: { 'tdx.trace_guid': item.traceGuid, 'tdx.step': `node:${service}`, 'tdx.inline': 'true', ...(consumer === undefined ? {} : { 'tdx.consumer': consumer }) },
      error: undefined,
    };
    try {
      const e = await run();
      const traceparent = `00-${span.traceId}-${span.spanId}-01`;
      for (const em of e.emit) emittedBy.set(em.value, traceparent);
      return e;
    } catch (err) {
      span.error = err instanceof Error ? err.message : String(err);
      throw err;
    } finally {
      span.end = nowNanos();
      this.push(span);
    }
  }

  /** Opens the SERVER span of an HTTP request; `traceparent` is the request's header, if any. */
  server(traceparent: string | undefined): ServerSpan {
    const parent = TRACEPARENT.exec(traceparent ?? '');
    const start = nowNanos();
    return {
      end: (method, route, status, attributes = {}) => {
        this.push({
          traceId: parent && parent[1] !== ZERO_TRACE ? parent[1]! : randomBytes(16).toString('hex'),
          spanId: randomBytes(8).toString('hex'),
          parentSpanId: parent ? parent[2] : undefined,
          name: route === undefined ? method : `${method} ${route}`,
          kind: KIND.server,
          start,
          end: nowNanos(),
          attributes: { 'http.request.method': method, ...(route === undefined ? {} : { 'http.route': route }), 'http.response.status_code': status, ...attributes },
          // a server span is an error only when the server failed (5xx), not the caller
          error: status >= 500 ? `HTTP ${status}` : undefined,
        });
      },
    };
  }

  private push(span: SpanRecord): void {
    this.buffer.push(span);
    if (this.buffer.length >= 512) void this.flush();
  }

  /** Sends the buffered spans. */
  flush(): Promise<void> {
    if (this.buffer.length === 0) return this.sending;
    const spans = this.buffer;
    this.buffer = [];
    const body = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: this.opts.serviceName } }] },
          scopeSpans: [
            {
              scope: { name: 'tdx' },
              spans: spans.map((s) => ({
                traceId: s.traceId,
                spanId: s.spanId,
                ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
                name: s.name,
                kind: s.kind,
                startTimeUnixNano: s.start.toString(),
                endTimeUnixNano: s.end.toString(),
                attributes: Object.entries(s.attributes).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } })),
                status: s.error === undefined ? { code: 1 } : { code: 2, message: s.error.slice(0, 500) },
              })),
            },
          ],
        },
      ],
    });
    this.sending = this.sending.then(() =>
      fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(10_000) }).then(
        (res) => {
          if (!res.ok) this.opts.logger.debug({ event: 'tracing:export-refused', status: res.status, spans: spans.length }, 'span export refused; spans dropped');
          return res.body?.cancel();
        },
        (err: unknown) => this.opts.logger.debug({ event: 'tracing:export-failed', err, spans: spans.length }, 'span export failed; spans dropped'),
      ),
    );
    return this.sending;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

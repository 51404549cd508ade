/**
 * Completing an as2_send delivery whose receipt was awaited (async MDN mode): called by the
 * `POST /as2/mdn` route when the receipt arrives and by the receipt-wait job when none came in
 * time. The work item recorded at sending gives the step its context again; the outcome's time
 * is the step's clock, so completing twice (a receipt posted again, two scheduler replicas)
 * rewrites the same rows.
 */
import type { As2ReceiptOutcome } from '../../domain/as2-delivery.ts';
import type { StageMessage } from '../../wire/stage.v1.ts';
import { watchAcknowledgments } from '../deadlines.ts';
import { contextOf } from '../node.ts';
import { trackedOf } from '../outbound.ts';
import type { NodeDeps } from '../ports.ts';
import { applyEffects } from '../runtime.ts';
import { receiptSettled } from './step.ts';
import { log } from '../outcomes.ts';
import { effects } from '../step.ts';

export async function completeAwaitedDelivery(deps: NodeDeps, work: StageMessage, outcome: As2ReceiptOutcome): Promise<void> {
  const ctx = await contextOf(deps, work, outcome.at);
  const document = work.artifacts[0] ?? { id: '', usage: 'output', contentType: null, filename: null };
  const tracked = trackedOf(ctx);
  const connectionId = ctx.node?.config['connectionId'];
  const connection = typeof connectionId === 'string' ? await deps.config.connection(work.organizationId, connectionId) : null;
  const e = receiptSettled(ctx, { document, outcome, tracked, waitSeconds: connection?.as2?.mdn.waitSeconds ?? null });
  if (outcome.status === 'processed') watchAcknowledgments(e, ctx, tracked);
  await applyEffects(deps.stores, deps.emitter, e, deps.wallClock());
}

/** A log entry on the trace of an awaited delivery (a receipt refused, or one that came too late). */
export async function noteOnAwaitedDelivery(deps: NodeDeps, work: StageMessage, level: 'info' | 'warn', message: string, key: string, at: number): Promise<void> {
  const ctx = await contextOf(deps, work, at);
  const e = effects();
  e.logs.push(log(ctx, `${work.id}:as2-receipt:${key}`, 0, level, message, at));
  await applyEffects(deps.stores, deps.emitter, e, deps.wallClock());
}

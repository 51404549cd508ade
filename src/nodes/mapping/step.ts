/**
 * mapping, the pure part. Inbound: the partner's document (its translation) is mapped with the
 * setting's mapping at its current version; a failed mapping never stops delivery: the result
 * is `success` with `mappingFailed` and `mappingError` (`expression`: the untransformed
 * translation goes on; `validation`: the output goes on as produced) and a `mapping_failed`
 * warning. Outbound: a failed mapping is an error result, and nothing is sent.
 */
import type { PartnerRecord, TransactionSetSetting } from '../../domain/configuration.ts';
import { JSON_CONTENT_TYPE, type ArtifactPointer, type ArtifactRecord, type ResultDetail, type WarningRecord } from '../../domain/records.ts';
import { artifactId, failure, next, result, stepResultId } from '../outcomes.ts';
import { effects, type Effects, type StepContext } from '../step.ts';
import { unwrittenFailure, type Unwritten } from '../outbound.ts';

/** What running the mapping gave (the adapter runs it in a worker thread). */
export type MappingRun =
  | { readonly ok: true; readonly outputJson: string; readonly validationErrors: readonly string[] }
  | { readonly ok: false; readonly message: string; readonly line?: number; readonly column?: number };

export interface MappingInput {
  readonly setting: TransactionSetSetting | null;
  /** Mapping name and version that ran, when one did. */
  readonly mapping: { readonly id: string; readonly name: string; readonly versionNumber: number } | null;
  readonly run: MappingRun | null;
  /** The document the mapping received (inbound: the translation; outbound: the submission). */
  readonly received: ArtifactPointer;
  /** Pointers the result repeats (the input document, the translation). */
  readonly carried: readonly ArtifactPointer[];
  /** Outbound: the setting and envelopes, for the transaction of a document that fails here. */
  readonly unwritten?: Unwritten;
}

const encoder = new TextEncoder();

/**
 * The partner's outbound setting for a set: same set, and same release when one is given
 * (compared on GS08's first six characters unless the given release is longer); among several,
 * the one with the given usage indicator, else the first.
 */
export function outboundSettingFor(partner: PartnerRecord, setId: string, release?: string | null, usage?: string | null): TransactionSetSetting | null {
  const rel = (release ?? '').trim();
  const same = (r: string): boolean => (rel.length > 6 ? r.trim() === rel : r.trim().slice(0, 6) === rel);
  const candidates = partner.transactionSetSettings.filter((s) => s.direction === 'outbound' && s.transactionSetIdentifier === setId && (rel === '' || same(s.release)));
  return candidates.find((s) => s.usageIndicator === usage) ?? candidates[0] ?? null;
}

/** One sentence naming the expression's fault, led by line and column when known. */
export function expressionFault(run: Extract<MappingRun, { ok: false }>): string {
  return run.line !== undefined ? `line ${run.line}, column ${run.column ?? 1}: ${run.message}` : run.message;
}

export function mapInbound(ctx: StepContext, input: MappingInput): Effects {
  const m = ctx.message;
  const txId = m.transactionId;
  const rid = stepResultId(ctx, txId);
  const e = effects();
  const priorWarnings = Number(m.params['warningCount'] ?? '0') || 0;
  const detail: ResultDetail = { transformations: ['x12_split', 'mapping'] };
  const warnings: WarningRecord[] = [];
  let output: ArtifactPointer = input.received;
  const artifacts: ArtifactPointer[] = [...input.carried];
  if (input.mapping && input.run) {
    if (!input.run.ok) {
      const fault = expressionFault(input.run);
      detail.mappingFailed = true;
      detail.mappingError = { kind: 'expression', message: `Mapping ${input.mapping.name} (version ${input.mapping.versionNumber}) failed to run: ${fault}` };
      detail.errors = [fault];
      warnings.push({ code: 'mapping_failed', message: `${detail.mappingError.message}; the untransformed translation was delivered.`, detail: { kind: 'expression' } });
    } else {
      const bytes = encoder.encode(input.run.outputJson);
      const rec: ArtifactRecord = {
        organizationId: m.organizationId,
        id: artifactId(rid, 'mapped'),
        traceGuid: m.traceGuid,
        resultId: rid,
        nodeName: ctx.node?.name ?? 'Mapping',
        usage: 'mapped',
        contentType: JSON_CONTENT_TYPE,
        filename: `${m.params['transactionSetIdentifier'] ?? 'document'}-mapped.json`,
        size: bytes.byteLength,
        sha256: '',
        blobId: artifactId(rid, 'mapped'),
        createdAt: ctx.now,
      };
      e.artifacts.push({ record: rec, bytes });
      output = { id: rec.id, usage: 'mapped', contentType: JSON_CONTENT_TYPE, filename: rec.filename };
      artifacts.push(output);
      if (input.run.validationErrors.length > 0) {
        const errors = [...input.run.validationErrors];
        detail.mappingFailed = true;
        detail.mappingError = {
          kind: 'validation',
          message: `The output of mapping ${input.mapping.name} (version ${input.mapping.versionNumber}) violates the implementation's shape in ${errors.length} place${errors.length === 1 ? '' : 's'}; it was delivered as produced.`,
          errors,
        };
        warnings.push({ code: 'mapping_failed', message: detail.mappingError.message, detail: { kind: 'validation', errors } });
      }
    }
  }
  e.results.push(
    result(ctx, {
      id: rid,
      transactionId: txId,
      status: 'success',
      direction: 'inbound',
      createdAt: ctx.now,
      detail,
      artifacts,
      warnings,
      payload: { artifactId: output.id, format: 'json' },
    }),
  );
  if (warnings.length > 0 && txId) e.updates.push({ organizationId: m.organizationId, id: txId, traceGuid: m.traceGuid, warningCount: priorWarnings + warnings.length });
  e.emit.push(
    ...next(ctx, {
      inputResultId: rid,
      artifacts,
      createdAt: ctx.now + 1,
      params: { ...m.params, warningCount: String(priorWarnings + warnings.length), outputArtifactId: output.id },
    }),
  );
  return e;
}

export function mapOutbound(ctx: StepContext, input: MappingInput): Effects {
  const m = ctx.message;
  const rid = stepResultId(ctx, null);
  if (input.mapping && input.run && !input.run.ok) {
    const fault = expressionFault(input.run);
    const message = `Mapping ${input.mapping.name} (version ${input.mapping.versionNumber}) failed on the submitted document: ${fault}`;
    const detail: ResultDetail = { transformations: ['partner_endpoint', 'mapping'] };
    // the document's transaction is recorded (status error, reference null): nothing was written
    if (input.unwritten) return unwrittenFailure(ctx, input.unwritten, [{ index: 0, message, errors: [fault] }], detail);
    return failure(ctx, { transactionId: null, message, errors: [fault], direction: 'outbound', at: ctx.now, detail });
  }
  const e = effects();
  let output: ArtifactPointer = input.received;
  if (input.mapping && input.run && input.run.ok) {
    const bytes = encoder.encode(input.run.outputJson);
    const rec: ArtifactRecord = {
      organizationId: m.organizationId,
      id: artifactId(rid, 'mapped'),
      traceGuid: m.traceGuid,
      resultId: rid,
      nodeName: ctx.node?.name ?? 'Mapping',
      usage: 'mapped',
      contentType: JSON_CONTENT_TYPE,
      filename: `${m.params['transactionSetIdentifier'] ?? 'document'}-mapped.json`,
      size: bytes.byteLength,
      sha256: '',
      blobId: artifactId(rid, 'mapped'),
      createdAt: ctx.now,
    };
    e.artifacts.push({ record: rec, bytes });
    output = { id: rec.id, usage: 'mapped', contentType: JSON_CONTENT_TYPE, filename: rec.filename };
  }
  e.results.push(
    result(ctx, {
      id: rid,
      transactionId: null,
      status: 'success',
      direction: 'outbound',
      createdAt: ctx.now,
      detail: { transformations: ['partner_endpoint', 'mapping'] },
      ...(output === input.received ? {} : { artifacts: [output] }),
      payload: { artifactId: output.id, format: 'json' },
    }),
  );
  e.emit.push(...next(ctx, { inputResultId: rid, artifacts: [output], createdAt: ctx.now + 1, params: { ...m.params, outputArtifactId: output.id } }));
  return e;
}

/**
 * validation of outbound documents, the pure part: the mapped JSON (one document, or an array
 * of documents for the sets of one group) checked against the partner's implementation as it
 * would be sent: written, read back and validated (`validateDocument`), so lengths, codes and
 * syntax notes are checked, not only the JSON shape. Any violation stops the submission: no
 * EDI is written and nothing is sent. The error result's `errorMessage` gives the count and
 * the first violation and how many others; `errors` has one entry per violation naming the
 * segment, its position, the element and the rule.
 *
 * Unlike inbound validation (which never lets a table stricter than the standard reject a
 * partner's document), outbound documents are validated against the implementation whether or
 * not its base definition is proven against the standard: the implementation is the partner's
 * specification of what it accepts, and the organization controls both.
 */
import { isTdxError } from '../../errors.ts';
import type { ArtifactPointer, ResultDetail } from '../../domain/records.ts';
import { validateDocument, type Implementation } from '../../x12/impl/index.ts';
import { next, result, stepResultId } from '../outcomes.ts';
import { unwrittenFailure, type DocumentFailure, type Unwritten } from '../outbound.ts';
import { effects, type Effects, type StepContext } from '../step.ts';
import { findingText } from '../x12-rules.ts';

export interface OutboundValidationInput {
  readonly unwritten: Unwritten;
  /** The setting's implementation: its name and engine model (null when it cannot be built). */
  readonly implementation: { readonly name: string; readonly model: Implementation | null } | null;
  /** The document as parsed, or why it could not be read. */
  readonly document: { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly message: string };
  readonly pointer: ArtifactPointer;
}

/** Most violations listed in `errors` per document (the count in `errorMessage` is always exact). */
export const MAX_VIOLATIONS_LISTED = 1000;

/** The violations of one document against the implementation (a document that cannot be written is one violation naming its JSON path). */
export function violationsOf(document: unknown, model: Implementation): string[] {
  try {
    return validateDocument(document, model).map(findingText);
  } catch (err) {
    if (isTdxError(err) && err.code === 'x12_document_invalid') return [`cannot be written as ${model.transactionSet.identifier}: ${err.message}`];
    throw err;
  }
}

/** `errorMessage` of a validation failure: count, first violation, how many others. */
export function violationSentence(name: string, violations: readonly string[]): string {
  const n = violations.length;
  const others = n - 1;
  const first = (violations[0] ?? '').replace(/\.$/, '');
  return `The document violates implementation ${name} in ${n} place${n === 1 ? '' : 's'}: ${first}${others > 0 ? `; and ${others} other${others === 1 ? '' : 's'}` : ''}.`;
}

export function validateOutbound(ctx: StepContext, input: OutboundValidationInput): Effects {
  const m = ctx.message;
  const detail: ResultDetail = { transformations: ['partner_endpoint', 'mapping', 'validation'] };
  const setId = m.params['transactionSetIdentifier'] ?? '';
  const fail = (failures: readonly DocumentFailure[]): Effects => unwrittenFailure(ctx, input.unwritten, failures, detail);
  const setting = input.unwritten.setting;
  if (!setting) {
    return fail([{ index: 0, message: `Partner ${m.partnerKey ?? ''} has no outbound transaction set setting for ${setId} release ${m.params['release'] ?? '(any)'} any more; nothing was sent.` }]);
  }
  if (!input.implementation || !input.implementation.model) {
    return fail([{ index: 0, message: `The implementation of the partner's ${setId} setting ${input.implementation ? `(${input.implementation.name}) cannot be read` : 'no longer exists'}; nothing was sent.` }]);
  }
  if (!input.document.ok) return fail([{ index: 0, message: `The document to validate ${input.document.message}; nothing was sent.` }]);
  const name = input.implementation.name;
  const model = input.implementation.model;
  const value = input.document.value;
  const documents = Array.isArray(value) ? value : [value];
  if (documents.length === 0) return fail([{ index: 0, message: 'The mapping produced an empty array: no document to send.' }]);
  const perDocument = documents.map((d) => violationsOf(d, model));
  const failing = perDocument.map((v, i) => ({ v, i })).filter((x) => x.v.length > 0);
  if (failing.length > 0) {
    const many = documents.length > 1;
    return fail(
      documents.map((_, i) => {
        const own = perDocument[i]!;
        if (own.length > 0) {
          return { index: i, message: many ? `Document ${i + 1} of ${documents.length}: ${violationSentence(name, own)}` : violationSentence(name, own), errors: own.slice(0, MAX_VIOLATIONS_LISTED) };
        }
        const first = failing[0]!;
        return { index: i, message: `Not sent: document ${first.i + 1} of the ${documents.length} in this group violates implementation ${name} (${first.v.length} violation${first.v.length === 1 ? '' : 's'}, the first: ${(first.v[0] ?? '').replace(/\.$/, '')}).` };
      }),
    );
  }
  const rid = stepResultId(ctx, null);
  const e = effects();
  e.results.push(result(ctx, { id: rid, transactionId: null, status: 'success', direction: 'outbound', createdAt: ctx.now, detail, payload: { artifactId: input.pointer.id, format: 'json' } }));
  e.emit.push(...next(ctx, { inputResultId: rid, artifacts: [input.pointer], createdAt: ctx.now + 1, params: { ...m.params, outputArtifactId: input.pointer.id, documentCount: String(documents.length) } }));
  return e;
}

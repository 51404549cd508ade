/** Translation (EDI → JSON), validation and writing (JSON → segments) of one transaction set. */
import type { Warning } from '../findings.ts';
import { genericJson } from '../generic.ts';
import { readInterchanges } from '../interchange.ts';
import type { JsonOut } from '../json-out.ts';
import type { TransactionSetRead } from '../types.ts';
import { delimitersFor, interchangeVersionOf, writeInterchange } from '../writer.ts';
import { resolveImplementation, validationImplementation } from './base.ts';
import { compile } from './compile.ts';
import { runSet } from './engine.ts';
import type { JsonObject } from './engine.ts';
import type { Implementation } from './model.ts';
import type { Finding } from './results.ts';
import { documentParts, writeDocument } from './write.ts';
import type { DocumentParts, WriteOptions, WrittenSegment } from './write.ts';

export interface Translation {
  readonly document: JsonObject;
  /** `invalid_date` warnings (the contract's warning objects). */
  readonly warnings: Warning[];
}

/** The implementation a set is read with when none is given: the base one for its set and release. */
export function implementationFor(set: TransactionSetRead): Implementation | null {
  return resolveImplementation(set.transactionSetIdentifier, set.group.release);
}

/** A translation as JSON text: what inbound processing stores and delivers. */
export interface JsonTranslation {
  /** JSON text of the document. */
  readonly json: string;
  /** `invalid_date` warnings (the contract's warning objects). */
  readonly warnings: Warning[];
}

/**
 * Translates a set to JSON text driven by `impl` (by default the base implementation of its set
 * and release), written directly from the set's text. A set without an implementation gets the
 * generic shape `{"segments": [{"id": "BEG", "BEG01": ...}]}` (src/x12/generic.ts); translation
 * never fails.
 */
export function translateSetJson(set: TransactionSetRead, impl?: Implementation | null): JsonTranslation {
  const use = impl === undefined ? implementationFor(set) : impl;
  if (use === null) return { json: genericJson(set), warnings: [] };
  const r = runSet(set, compile(use), true, false);
  return { json: r.json, warnings: r.warnings };
}

/**
 * `translateSetJson` appending the JSON text as UTF-8 bytes to `out` instead of returning a string
 * (for writers of many documents, such as the JSON Lines of `tdx x12 parse`: no string is made per
 * document). Returns the warnings.
 */
export function translateSetInto(set: TransactionSetRead, out: JsonOut, impl?: Implementation | null): Warning[] {
  const use = impl === undefined ? implementationFor(set) : impl;
  if (use === null) {
    out.text(genericJson(set));
    return [];
  }
  return runSet(set, compile(use), true, false, out).warnings;
}

/** `translateSetJson` with the document parsed into objects. */
export function translateSet(set: TransactionSetRead, impl?: Implementation | null): Translation {
  const t = translateSetJson(set, impl);
  return { document: JSON.parse(t.json) as JsonObject, warnings: t.warnings };
}

/** Translation (as JSON text) and validation in one pass. */
export function translateAndValidateJson(set: TransactionSetRead, impl?: Implementation | null): JsonTranslation & { findings: Finding[] } {
  const use = impl === undefined ? implementationFor(set) : impl;
  if (use === null) return { json: genericJson(set), warnings: [], findings: [] };
  // by default only a proven base definition validates (validationImplementation)
  const validate = impl !== undefined || validationImplementation(set.transactionSetIdentifier, set.group.release) !== null;
  const r = runSet(set, compile(use), true, validate);
  return validate ? r : { json: r.json, warnings: r.warnings, findings: [] };
}

/** Translation and validation in one pass. */
export function translateAndValidate(set: TransactionSetRead, impl?: Implementation | null): Translation & { findings: Finding[] } {
  const r = translateAndValidateJson(set, impl);
  return { document: JSON.parse(r.json) as JsonObject, warnings: r.warnings, findings: r.findings };
}

/**
 * Segment and element findings of a set against `impl` (by default its base implementation, when
 * that one is proven: `validationImplementation`); none for a set without one (structural checks
 * only, `baseDefinitionNote` says why).
 */
export function validateSet(set: TransactionSetRead, impl?: Implementation | null): Finding[] {
  const use = impl === undefined ? validationImplementation(set.transactionSetIdentifier, set.group.release) : impl;
  if (use === null) return [];
  return runSet(set, compile(use), false, true).findings;
}

/**
 * The segments (ST through SE) of a translated document: the document's own ST when it carries
 * one, else ST made from the options; SE always computed (segment count, ST02), whatever SE the
 * document gives. With `impl` null the document must be generic; `transactionSetIdentifier` is
 * used for a generated ST.
 */
export function documentToSegments(document: unknown, impl: Implementation | null, options: WriteOptions & { transactionSetIdentifier?: string } = {}): WrittenSegment[] {
  return writeDocument(document, impl === null ? null : compile(impl), impl?.transactionSet.identifier ?? options.transactionSetIdentifier ?? '', options);
}

/**
 * ST, body and SE of a translated document apart, as the document gives them; ST and SE null when
 * the document has none. The given SE is for telling a stale one: writers compute the SE written.
 */
export function documentToParts(document: unknown, impl: Implementation | null, options: WriteOptions = {}): DocumentParts {
  return documentParts(document, impl === null ? null : compile(impl), options);
}

/**
 * Findings of a document in the implementation's JSON shape (an outbound mapping's output)
 * against `impl`, as it would be sent: written (`documentToSegments`), put in an interchange,
 * read back and validated, so what JSON Schema cannot say (syntax notes, lengths of numbers as
 * written) is checked too. Throws TdxError `x12_document_invalid` naming the JSON path when the
 * document cannot be written at all.
 */
export function validateDocument(document: unknown, impl: Implementation): Finding[] {
  const version = interchangeVersionOf(impl.transactionSet.release);
  const delimiters = delimitersFor({ version });
  const segments = documentToSegments(document, impl, { delimiters });
  const st = segments[0] as WrittenSegment;
  const text = writeInterchange({ sender: { qualifier: 'ZZ', id: 'SENDER' }, receiver: { qualifier: 'ZZ', id: 'RECEIVER' }, interchangeControlNumber: 1, date: new Date(0), version, delimiters }, [
    {
      controlNumber: 1,
      release: impl.transactionSet.release,
      sets: [
        {
          transactionSetIdentifier: impl.transactionSet.identifier,
          controlNumber: st.elements[1] ?? '0001',
          ...(st.elements.length > 2 ? { headerElements: st.elements.slice(2) } : {}),
          segments: segments.slice(1, -1).map((s) => ({ id: s.id, elements: s.elements, joined: true })),
        },
      ],
    },
  ]);
  const set = readInterchanges(text).interchanges[0]?.groups[0]?.sets[0]?.set;
  if (set === undefined) throw new Error(`a document of ${impl.name} could not be read back after writing`);
  return validateSet(set, impl);
}

/**
 * Public surface of the implementation engine: base definitions, partner implementations,
 * translation (EDI ↔ JSON), validation with AK3/AK4 codes, the business reference, and the
 * JSON Schema, guide and portable export of an implementation.
 */
export type { DataType, ElementDef, Implementation, ImplementationStatus, LoopNode, Requirement, SegmentNode, StructureNode, TableDef, TableName, Usage } from './model.ts';
export { useCounts } from './model.ts';
export { baseDefinitionNote, baseImplementation, hasBaseDefinition, provenDefinitions, resolveImplementation, releaseOf, supportedReleases, supportedSets, validationImplementation } from './base.ts';
export { referenceElement, referenceElements, referenceOf } from './reference.ts';
export { documentToParts, documentToSegments, implementationFor, translateAndValidate, translateAndValidateJson, translateSet, translateSetInto, translateSetJson, validateDocument, validateSet } from './translate.ts';
export type { JsonTranslation, Translation } from './translate.ts';
export type { DocumentParts, WriteOptions, WrittenSegment } from './write.ts';
export type { Ak3Code, Ak4Code, ElementFinding, Finding, SegmentFinding, SegmentNote } from './results.ts';
export { segmentNotes } from './results.ts';
export { UNRECOGNIZED_ELEMENT, UNRECOGNIZED_SEGMENTS } from './engine.ts';
export type { JsonObject } from './engine.ts';
export { deriveImplementation, deviations } from './derive.ts';
export type { Adjustment, DerivedMeta, Deviation } from './derive.ts';
export { implementationSchema } from './schema.ts';
export { renderGuide } from './guide.ts';
export type { GuideVariant } from './guide.ts';
export { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, exportImplementation, importImplementation } from './portable.ts';
export type { ImportOptions } from './portable.ts';
export { sampleInterchange, sampleSegments, sampleSet, sampleValue } from './sample.ts';

/** Public surface of the X12 engine (pure: no I/O, no drivers). See docs/x12.md. */
export type { Delimiters, GroupHeader, InterchangeHeader, PartyId, Segment, TransactionSetRead } from './types.ts';
export { components, repetitions } from './types.ts';
export { readX12, readX12Stream } from './reader.ts';
export type { X12Event } from './reader.ts';
export { SetRead } from './set-read.ts';
export { allFindings, collect, readInterchanges, setsWithWarnings } from './interchange.ts';
export type { GroupRead, InterchangeRead, SetEntry, X12Read } from './interchange.ts';
export { ak5Codes, ak9Codes, groupStructuralWarnings, structuralWarning, ta1Codes } from './findings.ts';
export type { FindingKind, FindingScope, StructuralFinding, Warning } from './findings.ts';
export { defaultDelimiters, delimitersFor, formatIsa, formatSegment, functionalIds, writeInterchange, writeSegments } from './writer.ts';
export type { ElementValue, EnvelopeSettings, GroupToWrite, SegmentToWrite, SetToWrite } from './writer.ts';
export { ackKindFor, acknowledgeGroup, acknowledgeInterchange, outcomeForSet, readAcknowledgment } from './ack.ts';
export type { AckEnvelope, AckGroupRead, AckKind, AckOptions, AckRead, AckSetRead, ElementError, SegmentError, SetOutcome, SetValidation } from './ack.ts';
export { genericDocument, genericJson, genericToSegments } from './generic.ts';
export type { GenericDocument, GenericSegment, GenericValue } from './generic.ts';

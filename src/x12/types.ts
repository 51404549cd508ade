/**
 * Shared types of the X12 engine (pure: no I/O, no drivers). The reader produces these; the
 * translator, validator, writer and acknowledgment generator consume them.
 */

/** Delimiters of one interchange, read from its ISA. */
export interface Delimiters {
  /** ISA position 4 (the byte after "ISA"). */
  readonly element: string;
  /** ISA11 from release 00402 on when it is not alphanumeric; null before, or when ISA11 is "U". */
  readonly repetition: string | null;
  /** ISA16. */
  readonly component: string;
  /** The byte after ISA16. */
  readonly segment: string;
}

/**
 * One segment as read. `elements[0]` is element 01 (the segment id is not an element). Each
 * element is kept raw: components and repetitions are split on demand (see `components`), so
 * reading never allocates more than it must.
 */
export interface Segment {
  readonly id: string;
  readonly elements: readonly string[];
  /** 1-based position within its transaction set (ST is 1); within the interchange for envelope segments. */
  readonly position: number;
  /** Byte offset of the segment's first byte in the input. */
  readonly offset: number;
}

export interface PartyId {
  readonly qualifier: string;
  readonly id: string;
}

export interface InterchangeHeader {
  readonly sender: PartyId;
  readonly receiver: PartyId;
  readonly controlNumber: string;
  /** ISA12, such as "00401". */
  readonly version: string;
  /** ISA15 uppercased; "P" when blank. */
  readonly usageIndicator: string;
  readonly date: string;
  readonly time: string;
  readonly ackRequested: string;
  readonly delimiters: Delimiters;
  readonly offset: number;
}

export interface GroupHeader {
  /** GS01 functional identifier code, such as "PO". */
  readonly functionalId: string;
  readonly applicationSender: string;
  readonly applicationReceiver: string;
  readonly controlNumber: string;
  /** GS08, such as "004010" or "005010X231A1". */
  readonly release: string;
  readonly date: string;
  readonly time: string;
  readonly offset: number;
}

/** A transaction set with its envelopes, as handed to translation and validation. */
export interface TransactionSetRead {
  readonly interchange: InterchangeHeader;
  readonly group: GroupHeader;
  readonly transactionSetIdentifier: string;
  readonly controlNumber: string;
  /** ST through SE inclusive (SE absent when it was missing). */
  readonly segments: readonly Segment[];
}

/** Splits an element into its components. */
export function components(element: string, d: Delimiters): string[] {
  return element.indexOf(d.component) < 0 ? [element] : element.split(d.component);
}

/** Splits an element into its repetitions (one when the interchange has no repetition separator). */
export function repetitions(element: string, d: Delimiters): string[] {
  return d.repetition === null || element.indexOf(d.repetition) < 0 ? [element] : element.split(d.repetition);
}

/**
 * The business reference of a transaction set, exactly per the contract's "Reference by
 * transaction set" table: the element of the beginning segment that carries it, or null.
 */
import { firstElement } from '../set-read.ts';
import type { TransactionSetRead } from '../types.ts';
import { releaseOf } from './base.ts';

/** Set → [segment id, element position (1-based)]. */
export const referenceElements: Readonly<Record<string, readonly [string, number]>> = {
  '204': ['B2', 4],
  '210': ['B3', 2],
  '214': ['B10', 2],
  '810': ['BIG', 2],
  '812': ['BCD', 2],
  '820': ['TRN', 2],
  '846': ['BIA', 3],
  '850': ['BEG', 3],
  '855': ['BAK', 3],
  '856': ['BSN', 2],
  '860': ['BCH', 3],
  '865': ['BCA', 3],
  '875': ['G50', 3],
  '880': ['G01', 2],
  '940': ['W05', 2],
  '945': ['W06', 2],
  '990': ['B1', 2],
};

/** Where the reference of a set is read in a release (204 reads B206 in release 003060). */
export function referenceElement(transactionSetIdentifier: string, release: string): readonly [string, number] | null {
  if (transactionSetIdentifier === '204' && releaseOf(release) === '003060') return ['B2', 6];
  return referenceElements[transactionSetIdentifier] ?? null;
}

/**
 * The reference of a set: the element named by the table, read from the first occurrence of its
 * segment, trailing spaces left out; null for other sets and when the segment or element is absent or blank.
 */
export function referenceOf(set: TransactionSetRead): string | null {
  const at = referenceElement(set.transactionSetIdentifier, set.group.release);
  if (at === null) return null;
  const [id, pos] = at;
  // trailing spaces are not significant in X12; leading ones are kept
  const v = firstElement(set, id, pos)?.replace(/ +$/, '');
  return v === undefined || v.trim() === '' ? null : v;
}

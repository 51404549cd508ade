/**
 * Code lists of the acknowledgment elements, per release, as pyx12 (BSD-3-Clause,
 * github.com/azoner/pyx12, PyPI pyx12 4.0.0) gives them in its maps pyx12/map/997.4010.xml and
 * pyx12/map/999.5010.xml. Only elements whose list there is the standard's whole list are taken
 * (not 143, 479 or 480, which those guides narrow to health care); test/unit/x12/impl/codes.test.ts
 * checks each list against the maps. Every other element of a base definition has no code list.
 */
const n = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => String(from + i));

/** 997 in 004010: AK9 (715, 716), AK5 (717, 718), AK3 (720), AK4 (723). */
export const ackCodes004010: Readonly<Record<string, readonly string[]>> = {
  '715': ['A', 'E', 'M', 'P', 'R', 'W', 'X'],
  '716': [...n(1, 6), ...n(10, 18), ...n(23, 26)],
  '717': ['A', 'E', 'M', 'R', 'W', 'X'],
  '718': [...n(1, 13), ...n(15, 17), ...n(23, 27)],
  '720': n(1, 8),
  '723': n(1, 10),
};

/** 999 in 005010: AK9 (715, 716), IK5 (717, 618), IK3 (620), IK4 (621); shared by the 997 where the elements are the same. */
export const ackCodes005010: Readonly<Record<string, readonly string[]>> = {
  '715': ['A', 'E', 'M', 'P', 'R', 'W', 'X'],
  '716': [...n(1, 6), ...n(10, 19), ...n(23, 26)],
  '717': ['A', 'E', 'M', 'R', 'W', 'X'],
  '618': [...n(1, 13), ...n(15, 19), ...n(23, 27), 'I5', 'I6'],
  '620': [...n(1, 8), 'I4', 'I6', 'I7', 'I8', 'I9'],
  '621': [...n(1, 13), 'I6', 'I9', 'I10', 'I11', 'I12', 'I13'],
};

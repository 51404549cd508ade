/**
 * GS01 functional identifier code (data element 479) of X12 transaction sets (data element
 * 143), used to write a group when the caller names none. A group read from EDI carries its own
 * GS01 (`tdx x12 parse` prints it as `functionalIdentifierCode`), and an explicit one always
 * wins over this table.
 */

/** Functional identifier code → the transaction sets it covers. */
const setsByCode: Readonly<Record<string, string>> = {
  AA: '822', AG: '824', AK: '131', AN: '180', AR: '943', AW: '947', BC: '155', BE: '834', BL: '211', BS: '857',
  CA: '865', CC: '504', CD: '812', CE: '222', CH: '420', CI: '811', CO: '290', CP: '805', CS: '815', CT: '831',
  D4: '836', DA: '828', DI: '128', DS: '242', DX: '894 895', ED: '130', FA: '997 999', FB: '859', FG: '217',
  FR: '821', FT: '996', GE: '814', GF: '990', GP: '880', GR: '152', GT: '194', HB: '271', HC: '837', HI: '278',
  HN: '277', HP: '835', HR: '276', HS: '270', IA: '110', IB: '846', IJ: '148', IM: '210', IN: '810', IO: '310 312',
  IR: '410', JB: '437', KM: '286', LA: '195', LB: '823', LI: '436', LN: '272', MA: '224', MI: '213', MP: '159',
  MQ: '223', MR: '125', MZ: '240', NC: '842', NL: '101', NP: '157', NT: '149', OG: '875 876', OR: '816', OW: '940',
  PA: '845', PB: '455', PC: '860', PD: '852', PG: '100', PI: '275', PK: '839', PN: '244', PO: '850', PR: '855',
  PS: '830', PT: '867', PU: '216', PV: '250', PY: '829', QM: '214', QO: '313 315', RA: '820', RC: '861', RD: '185',
  RE: '944', RH: '433', RI: '853', RM: '431', RO: '300 301 303', RQ: '840', RR: '843', RS: '869 870', RT: '863',
  RV: '456', RW: '426', RX: '432', RY: '146', RZ: '147', SC: '832', SH: '856', SI: '858', SM: '204',
  SO: '304 317 322 323 324', SQ: '866', SR: '404', SS: '862', SW: '945', TA: '151', TD: '838', TF: '813', TR: '161',
  TT: '138', TX: '864', UW: '186 255', VA: '126', VB: '127', VD: '124', VS: '120', WB: '417', WG: '440', WR: '425',
};

function bySet(): Readonly<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [code, sets] of Object.entries(setsByCode)) for (const set of sets.split(' ')) out[set] = code;
  return Object.freeze(out);
}

/** GS01 of each transaction set this table knows. */
export const functionalIds: Readonly<Record<string, string>> = bySet();

/** GS01 for a transaction set identifier, or undefined when the table has none (such as "000"). */
export function functionalIdOf(transactionSetIdentifier: string): string | undefined {
  return Object.prototype.hasOwnProperty.call(functionalIds, transactionSetIdentifier) ? functionalIds[transactionSetIdentifier] : undefined;
}

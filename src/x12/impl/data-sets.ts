/**
 * Transaction set structures as compact data, with 004010 position numbers (005010 positions
 * are derived: "020" becomes "0200"). A table is a comma-separated list of segment uses
 * `ID position requirement maxUse` and loops `{LOOPID requirement repeat | children}`, where
 * ">1" is unbounded. Segment definitions come from the release's dictionary.
 */
export interface SetStructure {
  readonly name: string;
  readonly heading: string;
  readonly detail: string;
  readonly summary: string;
}

const n1Loop = (pos: number, repeat: string, extra = ''): string =>
  `{N1 O ${repeat} | N1 ${pos} O 1, N2 ${pos + 10} O 2, N3 ${pos + 20} O 2, N4 ${pos + 30} O >1, REF ${pos + 40} O 12, PER ${pos + 50} O >1${extra}}`;

/** Heading of the purchase order change sets (860, 865): the same table after their beginning segment. */
const poChangeHeading = (beginning: string): string =>
  `ST 010 M 1, ${beginning} 020 M 1, CUR 040 O 1, REF 050 O >1, PER 060 O 3, TAX 070 O >1, FOB 080 O >1, CTP 090 O >1, CSH 110 O 5,
      {SAC O 25 | SAC 120 O 1, CUR 125 O 1}, ITD 130 O 5, DIS 140 O 20, DTM 150 O 10, LDT 160 O 12, PID 190 O 200, MEA 200 O 40, PWK 210 O 25,
      PKG 220 O 200, TD1 230 O 2, TD5 240 O 12, TD3 250 O 12, TD4 260 O 5, MAN 270 O 10, TXI 285 O >1,
      {N9 O 1000 | N9 295 O 1, DTM 300 O >1, MSG 305 O 1000},
      ${n1Loop(310, '200')}`;

/** Detail tail shared by 850, 860 and 865: N9 loop, N1 loop and SLN loop. */
const PO_DETAIL_TAIL = `{N9 O 1000 | N9 380 O 1, DTM 390 O >1, MSG 400 O 1000},
      ${n1Loop(410, '200')},
      {SLN O 1000 | SLN 470 O 1, MSG 480 O >1, SI 490 O >1, PID 500 O 1000, PO3 510 O 104, DTM 520 O 10, CTP 530 O 25, PO4 540 O 1}}`;

export const setStructures: Readonly<Record<string, SetStructure>> = {
  '204': {
    name: 'Motor Carrier Load Tender',
    heading: `ST 010 M 1, B2 020 M 1, B2A 030 M 1, L11 080 O 50, G62 090 O 1, MS3 100 O 1, AT5 110 O 6, PLD 120 O 1, NTE 130 O 10,
      {N1 O 5 | N1 140 O 1, N2 150 O 1, N3 160 O 2, N4 170 O 1, L11 180 O 5, G61 190 O 3},
      {N7 O 10 | N7 200 O 1, MEA 230 O 20, M7 240 O 2}`,
    detail: `{S5 M 999 | S5 010 M 1, L11 020 O 50, G62 030 O 2, AT8 040 O 1, LAD 050 O 999, AT5 060 O 6, PLD 070 O 1, NTE 080 O 20,
      {N1 O 1 | N1 090 O 1, N2 100 O 1, N3 110 O 2, N4 120 O 1, G61 130 O 3},
      {L5 O 999 | L5 140 O 1, AT8 150 O 1, G61 160 O 1, L11 170 O 10},
      {OID O 999 | OID 180 O 1, G62 190 O 2, LAD 200 O 999, L5 210 O 1}}`,
    summary: `L3 010 O 1, SE 020 M 1`,
  },
  '210': {
    name: 'Motor Carrier Freight Details and Invoice',
    heading: `ST 010 M 1, B3 020 M 1, C3 030 O 1, ITD 040 O 1, L11 050 O 300, G62 060 O 6, R3 070 O 12, H3 080 O 6, K1 090 O 10,
      {N1 O 10 | N1 100 O 1, N2 110 O 1, N3 120 O 2, N4 130 O 1, L11 140 O 5},
      {N7 O 10 | N7 160 O 1, M7 170 O 5}`,
    detail: `{LX O 9999 | LX 010 M 1, L11 030 O 10, L5 040 O 30, H1 050 O 3, H2 060 O 2, L0 070 O 10, L1 080 O 10, L4 090 O 10, L7 100 O 10, K1 110 O 10}`,
    summary: `L3 010 M 1, SE 020 M 1`,
  },
  '214': {
    name: 'Transportation Carrier Shipment Status Message',
    heading: `ST 010 M 1, B10 020 M 1, L11 030 O 300, MAN 040 O 9999, K1 050 O 10,
      {N1 O 10 | N1 060 O 1, N2 070 O 1, N3 080 O 2, N4 090 O 1, G61 100 O 1, L11 110 O 300}`,
    detail: `{LX O >1 | LX 010 M 1, {AT7 O 10 | AT7 020 O 1, MS1 030 O 1, MS2 040 O 2}, L11 050 O 10, MAN 060 O 9999, Q7 070 O 10, K1 080 O 10, AT8 090 O 10}`,
    summary: `SE 010 M 1`,
  },
  '810': {
    name: 'Invoice',
    heading: `ST 010 M 1, BIG 020 M 1, NTE 030 O 100, CUR 040 O 1, REF 050 O 12, PER 060 O 3,
      ${n1Loop(70, '200')}, ITD 130 O >1, DTM 140 O 10, FOB 150 O 1, PID 160 O 200, MEA 170 O 10, PWK 180 O 25, PKG 190 O 25`,
    detail: `{IT1 O 200000 | IT1 010 M 1, QTY 015 O 5, CUR 020 O 1, IT3 030 O 5, TXI 040 O 10, CTP 050 O 25,
      {PID O 1000 | PID 060 O 1, MEA 070 O 10}, PWK 080 O 25, PKG 090 O 25, PO4 100 O 1, ITD 110 O 2, REF 120 O >1, PER 130 O 5, DTM 150 O 10, CAD 160 O >1,
      {SAC O 25 | SAC 180 O 1, TXI 190 O 10},
      {SLN O 1000 | SLN 200 O 1, DTM 210 O 1, REF 220 O >1, PID 230 O 1000},
      ${n1Loop(240, '200')}}`,
    summary: `TDS 010 M 1, TXI 020 O 10, CAD 030 O 1, AMT 040 O >1, {SAC O 25 | SAC 045 O 1, TXI 050 O 10}, {ISS O >1 | ISS 060 O 1, PID 065 O 1}, CTT 070 O 1, SE 080 M 1`,
  },
  '812': {
    name: 'Credit/Debit Adjustment',
    heading: `ST 010 M 1, BCD 020 M 1, CUR 030 O 1, N9 040 O >1, PER 045 O 3, DTM 050 O >1, ${n1Loop(60, '200')}`,
    detail: `{CDD O >1 | CDD 010 M 1, CUR 015 O 1, LIN 020 O 1, CTP 030 O 1, QTY 040 O 1, DTM 050 O 1, PID 060 O 1, REF 070 O >1, MSG 080 O 10, NTE 090 O >1,
      {SAC O 25 | SAC 100 O 1, TXI 110 O 10}}`,
    summary: `SE 010 M 1`,
  },
  '820': {
    name: 'Payment Order/Remittance Advice',
    heading: `ST 010 M 1, BPR 020 M 1, NTE 030 O >1, TRN 035 O 1, CUR 040 O 1, REF 050 O >1, DTM 060 O >1,
      {N1 O >1 | N1 070 O 1, N2 080 O >1, N3 090 O >1, N4 100 O 1, REF 110 O >1, PER 120 O >1}`,
    detail: `{ENT O >1 | ENT 010 O 1,
      {NM1 O >1 | NM1 020 O 1, N2 030 O >1, N3 040 O >1, N4 050 O 1, REF 060 O >1, PER 070 O >1},
      {ADX O >1 | ADX 080 O 1, NTE 090 O >1, PER 100 O >1, DTM 105 O 1},
      {RMR O >1 | RMR 150 O 1, NTE 160 O >1, REF 170 O >1, DTM 180 O >1, {IT1 O >1 | IT1 190 O 1}, {ADX O >1 | ADX 210 O 1, NTE 220 O >1, PER 230 O >1}}}`,
    summary: `SE 010 M 1`,
  },
  '846': {
    name: 'Inventory Inquiry/Advice',
    heading: `ST 010 M 1, BIA 020 M 1, CUR 030 O 1, REF 040 O >1, PER 050 O 3, MEA 060 O 10, DTM 080 O 10,
      ${n1Loop(90, '>1')}`,
    detail: `{LIN O 10000 | LIN 010 M 1, SLN 015 O >1, PID 020 O 200, DTM 030 O 10, REF 040 O >1, PER 050 O 3, MEA 060 O 40, CTP 070 O 25, PO4 080 O 1, MAN 090 O 10,
      {SAC O 25 | SAC 100 O 1, CUR 110 O 1},
      {QTY O >1 | QTY 120 O 1, SCH 130 O >1, DTM 140 O 1, REF 150 O 5},
      ${n1Loop(160, '>1')}}`,
    summary: `CTT 010 O 1, SE 020 M 1`,
  },
  '850': {
    name: 'Purchase Order',
    heading: `ST 010 M 1, BEG 020 M 1, CUR 040 O 1, REF 050 O >1, PER 060 O 3, TAX 070 O >1, FOB 080 O >1, CTP 090 O >1, CSH 110 O 5,
      {SAC O 25 | SAC 120 O 1, CUR 125 O 1}, ITD 130 O >1, DIS 140 O 20, DTM 150 O 10, LDT 160 O 12, LIN 180 O 5, SI 185 O >1, PID 190 O 200,
      MEA 200 O 40, PWK 210 O 25, PKG 220 O 200, TD1 230 O 2, TD5 240 O 12, TD3 250 O 12, TD4 260 O 5, MAN 270 O 10, TXI 285 O >1,
      {AMT O >1 | AMT 287 O 1, REF 288 O >1, DTM 289 O 1},
      {N9 O 1000 | N9 295 O 1, DTM 300 O >1, MSG 305 O 1000},
      ${n1Loop(310, '200', ', SI 370 O >1, FOB 380 O 1, TD1 385 O 2, TD5 390 O 12, TD3 400 O 12, TD4 410 O 5, PKG 420 O 200')}`,
    detail: `{PO1 M 100000 | PO1 010 M 1, LIN 015 O >1, SI 018 O >1, CUR 020 O 1, PO3 040 O 25, {CTP O >1 | CTP 045 O 1, CUR 047 O 1}, MEA 049 O 40,
      {PID O 1000 | PID 050 O 1, MEA 060 O 10}, PWK 070 O 25, PO4 090 O >1, REF 100 O >1, PER 110 O 3,
      {SAC O 25 | SAC 130 O 1, CUR 135 O 1}, CSH 140 O 1, ITD 150 O 2, DIS 160 O 20, TAX 180 O >1, FOB 190 O >1, SDQ 200 O 500, DTM 210 O 10,
      TD1 240 O 1, TD5 250 O 12, TD3 260 O 12, TD4 270 O 5, MAN 290 O 10, MSG 293 O >1, TXI 298 O >1,
      {QTY O >1 | QTY 300 O 1, SI 305 O >1},
      {SCH O 200 | SCH 310 O 1, TD1 320 O 2, TD5 330 O 12, TD3 340 O 12, TD4 350 O 5, REF 360 O >1},
      PKG 370 O 200,
      {N9 O 1000 | N9 400 O 1, DTM 410 O >1, MEA 420 O 40, MSG 430 O 1000},
      ${n1Loop(440, '200', ', FOB 500 O 1, SCH 510 O 200, TD1 520 O 2, TD5 530 O 12, TD3 540 O 12, TD4 550 O 5, PKG 560 O 200')},
      {SLN O 1000 | SLN 570 O 1, MSG 580 O >1, SI 590 O >1, PID 600 O 1000, PO3 610 O 104, DTM 640 O 10, CTP 650 O 25, PO4 658 O 1, TAX 660 O 3}}`,
    summary: `{CTT O 1 | CTT 010 O 1, AMT 020 O 1}, SE 030 M 1`,
  },
  '855': {
    name: 'Purchase Order Acknowledgment',
    heading: `ST 010 M 1, BAK 020 M 1, CUR 040 O 1, REF 050 O >1, PER 060 O 3, TAX 070 O >1, FOB 080 O >1, CTP 090 O >1, CSH 110 O 5,
      {SAC O 25 | SAC 120 O 1, CUR 125 O 1}, ITD 130 O >1, DIS 140 O 20, DTM 150 O 10, LDT 160 O 12, LIN 180 O 5, SI 185 O >1, PID 190 O 200,
      MEA 200 O 40, PWK 210 O 25, PKG 220 O 200, TD1 230 O 2, TD5 240 O 12, TD3 250 O 12, TD4 260 O 5, MAN 270 O 10, TXI 285 O >1,
      {N9 O 1000 | N9 295 O 1, DTM 300 O >1, MSG 305 O 1000},
      ${n1Loop(310, '200')}`,
    detail: `{PO1 O 100000 | PO1 010 M 1, LIN 015 O >1, SI 018 O >1, CUR 020 O 1, PO3 040 O 25, {CTP O >1 | CTP 045 O 1, CUR 047 O 1}, MEA 049 O 40,
      {PID O 1000 | PID 050 O 1, MEA 060 O 10}, PWK 070 O 25, PO4 090 O >1, REF 100 O >1, PER 110 O 3,
      {SAC O 25 | SAC 130 O 1, CUR 135 O 1}, ITD 150 O 2, DIS 160 O 20, TAX 180 O >1, FOB 190 O >1, SDQ 200 O 500,
      {ACK O 104 | ACK 270 O 1, DTM 271 O 10}, DTM 275 O 10, TD1 280 O 1, TD5 285 O 12, TD3 290 O 12, TD4 295 O 5, MAN 300 O 10, MSG 305 O >1, TXI 310 O >1,
      {SCH O 200 | SCH 320 O 1, TD1 330 O 2, TD5 340 O 12, TD3 350 O 12, TD4 360 O 5, REF 370 O >1},
      ${PO_DETAIL_TAIL}`,
    summary: `{CTT O 1 | CTT 010 O 1, AMT 020 O 1}, SE 030 M 1`,
  },
  '856': {
    name: 'Ship Notice/Manifest',
    heading: `ST 010 M 1, BSN 020 M 1, DTM 040 O 10`,
    detail: `{HL M 200000 | HL 010 M 1, LIN 020 O 1, SN1 030 O 1, SLN 040 O 1000, PRF 050 O 1, PO4 060 O 1, PID 070 O 200, MEA 080 O 40, PWK 085 O 25, PKG 090 O 25,
      TD1 110 O 20, TD5 120 O 10, TD3 130 O 12, TD4 140 O 5, REF 150 O >1, PER 160 O 3, MAN 190 O >1, DTM 200 O 10, FOB 210 O 1,
      ${n1Loop(220, '200', ', FOB 280 O 1')}, SDQ 290 O 50, CUR 310 O 1, {SAC O >1 | SAC 320 O 1, CUR 325 O 1}}`,
    summary: `CTT 010 O 1, SE 020 M 1`,
  },
  '860': {
    name: 'Purchase Order Change Request - Buyer Initiated',
    heading: poChangeHeading('BCH'),
    detail: `{POC O >1 | POC 010 M 1, LIN 015 O >1, SI 018 O >1, CUR 020 O 1, PO3 040 O 25, {CTP O >1 | CTP 045 O 1, CUR 047 O 1}, MEA 049 O 40,
      {PID O 1000 | PID 050 O 1, MEA 060 O 10}, PWK 070 O 25, PO4 090 O >1, REF 100 O >1, PER 110 O 3,
      {SAC O 25 | SAC 130 O 1, CUR 135 O 1}, ITD 150 O 2, DIS 160 O 20, TAX 180 O >1, FOB 190 O >1, SDQ 200 O 500, DTM 210 O 10,
      TD1 240 O 1, TD5 250 O 12, TD3 260 O 12, TD4 270 O 5, MAN 290 O 10, MSG 293 O >1, TXI 298 O >1,
      {SCH O 104 | SCH 310 O 1, TD1 320 O 2, TD5 330 O 12, TD3 340 O 12, TD4 350 O 5, REF 360 O >1},
      ${PO_DETAIL_TAIL}`,
    summary: `{CTT O 1 | CTT 010 O 1, AMT 020 O 1}, SE 030 M 1`,
  },
  '865': {
    name: 'Purchase Order Change Acknowledgment/Request - Seller Initiated',
    heading: poChangeHeading('BCA'),
    detail: `{POC O >1 | POC 010 M 1, LIN 015 O >1, SI 018 O >1, CUR 020 O 1, PO3 040 O 25, {CTP O >1 | CTP 045 O 1, CUR 047 O 1}, MEA 049 O 40,
      {PID O 1000 | PID 050 O 1, MEA 060 O 10}, PWK 070 O 25, PO4 090 O >1, REF 100 O >1, PER 110 O 3,
      {SAC O 25 | SAC 130 O 1, CUR 135 O 1}, ITD 150 O 2, DIS 160 O 20, TAX 180 O >1, FOB 190 O >1, SDQ 200 O 500,
      {ACK O 104 | ACK 270 O 1, DTM 271 O 10}, DTM 275 O 10, TD1 280 O 1, TD5 285 O 12, TD3 290 O 12, TD4 295 O 5, MAN 300 O 10, MSG 305 O >1, TXI 310 O >1,
      {SCH O 104 | SCH 320 O 1, TD1 330 O 2, TD5 340 O 12, TD3 350 O 12, TD4 360 O 5, REF 370 O >1},
      ${PO_DETAIL_TAIL}`,
    summary: `{CTT O 1 | CTT 010 O 1, AMT 020 O 1}, SE 030 M 1`,
  },
  '875': {
    name: 'Grocery Products Purchase Order',
    heading: `ST 010 M 1, G50 020 M 1, N9 030 O 5, G61 040 O 3, G62 050 O 5, NTE 060 O 5, {N1 O 10 | N1 070 O 1, N2 080 O 2, N3 090 O 2, N4 100 O 1, N9 110 O 10, G61 120 O 3}`,
    detail: `{G68 O 9999 | G68 010 M 1, G69 020 O 5, N9 030 O 10, G70 040 O 1, G43 050 O 10, G72 060 O 10}`,
    summary: `G76 010 M 1, G72 020 O 10, SE 030 M 1`,
  },
  '880': {
    name: 'Grocery Products Invoice',
    heading: `ST 010 M 1, G01 020 M 1, G62 030 O 5, N9 040 O 10, {N1 O 10 | N1 050 O 1, N2 060 O 2, N3 070 O 2, N4 080 O 1, N9 090 O 10, G61 100 O 3}`,
    detail: `{G17 O 9999 | G17 010 M 1, G69 020 O 5, N9 030 O 10, G72 040 O 10}`,
    summary: `G31 010 M 1, G72 020 O 10, G33 030 O 1, SE 040 M 1`,
  },
  '940': {
    name: 'Warehouse Shipping Order',
    heading: `ST 010 M 1, W05 020 M 1, {N1 O 10 | N1 040 O 1, N2 050 O 2, N3 060 O 2, N4 070 O 1, G61 080 O 1}, N9 090 O 10, G62 100 O 10, NTE 110 O 10, W66 120 O 1`,
    detail: `{LX O 9999 | LX 010 M 1, {W01 M 9999 | W01 020 M 1, G69 030 O 5, N9 040 O 200, G62 050 O 1, QTY 060 O 1}}`,
    summary: `W76 010 O 1, SE 020 M 1`,
  },
  '945': {
    name: 'Warehouse Shipping Advice',
    heading: `ST 010 M 1, W06 020 M 1, {N1 O 10 | N1 040 O 1, N2 050 O 2, N3 060 O 2, N4 070 O 1, G61 080 O 1}, N9 090 O 30, G62 100 O 10, W27 110 O 1`,
    detail: `{LX O 9999 | LX 010 M 1, MAN 015 O 10, {W12 M 9999 | W12 020 M 1, G69 030 O 5, N9 040 O 20}}`,
    summary: `W03 010 M 1, SE 020 M 1`,
  },
  '990': {
    name: 'Response to a Load Tender',
    heading: `ST 010 M 1, B1 020 M 1, N9 030 O 1, V9 040 O 1, K1 050 O 10`,
    detail: ``,
    summary: `SE 010 M 1`,
  },
  '997': {
    name: 'Functional Acknowledgment',
    heading: `ST 010 M 1, AK1 020 M 1, {AK2 O 999999 | AK2 030 O 1, {AK3 O 999999 | AK3 040 O 1, AK4 050 O 99}, AK5 060 M 1}, AK9 070 M 1, SE 080 M 1`,
    detail: ``,
    summary: ``,
  },
  '999': {
    name: 'Implementation Acknowledgment',
    heading: `ST 010 M 1, AK1 020 M 1, {AK2 O 999999 | AK2 030 O 1, {IK3 O 999999 | IK3 040 O 1, CTX 050 O 10, {IK4 O >1 | IK4 060 O 1, CTX 070 O 10}}, IK5 080 M 1}, AK9 090 M 1, SE 100 M 1`,
    detail: ``,
    summary: ``,
  },
};

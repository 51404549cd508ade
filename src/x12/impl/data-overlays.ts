/**
 * Per-release differences from the 004010 dictionary: each overlay replaces whole entries (same
 * compact syntax as `data-segments.ts` and `data-elements.ts`).
 */
export interface ReleaseOverlay {
  readonly elements: string;
  readonly segments: string;
  readonly composites?: string;
}

export const overlays: Readonly<Record<string, ReleaseOverlay>> = {
  '005010': {
    elements: `
447 AN 1 4 Loop Identifier Code
719 N0 1 10 Segment Position in Transaction Set
127 AN 1 50 Reference Identification
364 AN 1 256 Communication Number
1715 ID 1 3 Country Subdivision Code
58 N2 1 15 Charge
117 N2 1 15 Prepaid Amount
207 AN 1 15 Equipment Number
358 R 1 15 Quantity Invoiced
1000 ID 2 3 Service Characteristics Qualifier
1035 AN 1 60 Name Last or Organization Name
1036 AN 1 35 Name First
267 N0 1 10 Net Explosive Quantity
1321 ID 2 3 Condition Indicator
`,
    segments: `
ST Transaction Set Header: M143 M329 O1705
AK1 Functional Group Response Header: M479 M28 O480
AK2 Transaction Set Response Header: M143 M329 O1705
N4 Geographic Location: O19 X156 X116 X26 X309 X310 X1715
L11 Business Instructions and Reference Number: O127 O128 O352 O~DT.8.8 O~AN.1.1
OID Order Identification Detail: O127 O324 O127 O~AN.3.3 O380 O188 O81 O184 O183 O~AN.1.3 O~AN.1.50
L1 Rate and Charges: O213 X60 X122 X58 X191 X117 O120 O150 O121 O39 O16 O276 O257 X74 X122 O372 X220 X221 O954 O100 O610 O~R.2.9
B10 Beginning Segment for Transportation Carrier Shipment Status Message: X127 O145 M140 O71 X128 X127 O1073 O~DT.8.8 O~TM.4.8
AT5 Bill of Lading Handling Requirements: O152 O560 O153 O~AN.2.2 O~R.1.4 O~R.1.4
MS1 Equipment, Shipment, or Real Property Location: X19 X156 X26 X1654 X1655 O1280 O1280 O116
BIG Beginning Segment for Invoice: M373 M76 O373 O324 O328 O327 O640 O353 O306 O76 O~AN.4.4
DMG Demographic Information: O1250 O1251 O1068 O1067 OC056 O1066 O26 O659 O380 O1270 O1271
MEA Measurements: O737 O738 O739 OC001 O740 O741 O935 O936 O752 O1373 O1270 O1271
INC Installment Information: M336 MC001 M380 O380 O782 O~AN.1.3
CAD Carrier Detail: M91 O206 O207 O140 O387 O368 O128 O127 O284
CD3 CD3: O~AN.1.2 O~R.1.10 O~AN.2.3 O~N1.1.4 O~AN.2.2 O~AN.1.2 O~AN.2.2 O~N2.1.15 O~AN.2.2 O~N2.1.15 O~AN.2.2 O~AN.2.2 O~AN.3.3 O~AN.2.3
BCD Beginning Credit/Debit Adjustment: M373 M76=Credit/Debit_Adjustment_Number M~AN.1.2 M~N2.1.15 M~AN.1.1 O373 O76 O~AN.1.22 O~DT.8.8 O~AN.1.22 O~AN.2.2 O~AN.2.2 O~AN.2.3 O~AN.1.50 O~AN.1.2
SHD SHD: O~R.1.10 O~R.1.7 O~AN.2.2 O~R.1.10 O~AN.2.2 O~R.1.8 O~AN.2.2 O~R.1.10 O~AN.1.3 O~AN.1.2 O~AN.2.4 O~AN.2.2 O~AN.2.3 O~AN.1.50
N11 N11: M~AN.1.10 O~AN.1.30 O~AN.1.50
CS CS: O~AN.1.30 O~AN.1.8 O~AN.1.30 O~AN.2.3 O~AN.1.50 O~AN.1.22 O~AN.2.10 O~AN.2.2 O~R.1.10 O~R.1.10 O~R.1.18 O~AN.2.2 O~AN.2.10 O~AN.2.2 O~R.1.17 O~AN.2.2 O~AN.1.1 O~AN.1.1
DD DD: O~AN.1.30 O~AN.1.3 O~AN.2.3 O~AN.1.50 O~AN.1.30 O~AN.1.3 O~R.1.15 O~AN.1.1 O~AN.1.30 O~AN.1.3
CDD Credit/Debit Adjustment: M426 M478 O~AN.1.20 O~N2.1.15 O~AN.1.1 O~AN.1.3 O~R.1.10 O~AN.2.2 O~R.1.15 O~AN.3.3 O~R.1.17 O~AN.3.3 O~R.1.17 O~AN.1.264
W28 W28: M~AN.1.1 O~R.1.10 O~AN.1.2 O~AN.1.1 O~R.1.2 O~AN.1.30 O~AN.1.2 O~AN.1.25
PAL PAL: O~AN.1.2 O~R.1.3 O~R.1.3 O~R.1.6 O~R.1.8 O~AN.2.2 O~R.1.8 O~R.1.8 O~R.1.8 O~AN.2.2 O~R.1.9 O~AN.2.2 O~R.1.9 O~AN.2.2 O~AN.1.1 O~R.1.6 O~AN.1.1
B1 Beginning Segment for Booking or Pick-up/Delivery: M140 O145 O373 O558 O~AN.1.1 O~AN.3.3
NM1 Individual or Organizational Name: M98 M1065 O1035 O1036 O1037 O1038 O1039 O66 O67 O706 O98 O1035
LAD Lading Detail: X211 X80 X188 X395 X188 X81 X235 X234 X235 X234 X235 X234 O79 O~R.2.9
LH2 Hazardous Classification Information: O215 O983 O218 O222 O759 X355 X408 X355 X408 X355 X408 O~AN.1.1 O~R.1.10
LFH Freeform Hazardous Material Information: M808 M809 O809 O1023 X355 X380 O380 O~DT.8.8
MTX Text: O363 O1551 O1551 O934 O~R.1.9 O~AN.2.3
NX2 Location ID Component: M1106 M166 O1096 O~AN.2.2 O~AN.1.55
CTB Restrictions/Conditions: M688 O352 O673 O380 O522 O610 OC001
AIN AIN: M~AN.2.2 M~AN.1.1 M~R.1.18 O~R.1.15 O~AN.1.1 O~AN.1.50 O~AN.1.3 O~AN.1.1 O~R.1.15 O~AN.2.2 O~R.1.15 O~AN.1.30 O~AN.1.80
EMS EMS: O~AN.1.80 O~AN.2.3 O~AN.4.6 O~AN.2.2 O~AN.2.3 O~AN.1.50 O~AN.1.50 O~AN.2.3 O~AN.1.2 O~AN.2.80 O~R.1.6 O~AN.2.2 O~AN.1.2 O~AN.2.80 O~AN.2.3
DED DED: M~AN.2.2 M~AN.1.50 M~DT.8.8 M~N2.1.15 M~AN.1.50 M~AN.1.1 O~AN.1.60 O~AN.1.50 O~AN.1.1
PEN PEN: M~AN.2.2 O~R.1.18 O~AN.2.2 O~R.1.10 O~AN.1.6 O~AN.1.50 O~R.1.9 O~AN.1.2 O~AN.3.3
RYL RYL: M~R.1.6 O~AN.1.60 O~AN.1.2 O~AN.2.80
RDM Remittance Delivery Method: M756 O93 O364 OC040 OC040
LOC LOC: M~AN.2.3 M~AN.1.50 O~AN.1.80 O~AN.1.50 O~AN.1.6 O~AN.2.3 O~AN.1.50 O~AN.1.80 O~AN.1.50 O~R.1.20 OC001 O~R.1.20 OC001 O~R.1.20 OC001 O~R.1.20 OC001 O~R.1.20 OC001 O~R.1.20 OC001 O~AN.2.3 O~AN.1.50 O~AN.1.80
GF GF: O~AN.2.3 O~AN.1.50 O~AN.1.30 O~R.1.18 O~AN.2.3 O~AN.1.50 O~AN.1.30 O~AN.2.3 O~AN.1.50
ETD ETD: M~AN.1.2 M~AN.1.1 O~AN.2.3 O~AN.1.50 O~AN.1.2
LHE LHE: M~AN.1.25 M~AN.14.40 M~AN.2.3 M~AN.1.50 O~AN.2.2
PD PD: M~AN.2.2 M~DT.8.8 MC001 M~R.1.15 M~AN.1.60 O~AN.1.80 O~AN.2.2 O~AN.1.50 O~AN.1.80 O~AN.1.3
BCH Beginning Segment for Purchase Order Change: M353 M92 M324 O328 O327 M373 O326 O367 O~AN.1.50 O373 O373 O~AN.2.2 O~AN.2.2 O~AN.2.2 O~AN.2.2 O~AN.2.2
BCA Beginning Segment for Purchase Order Change Acknowledgment: M353 O587 M324 O328 O327 M~DT.8.8 O~AN.1.45 O~AN.1.30 O~AN.1.50 O373 O373 O~DT.8.8 O~AN.2.2 O~AN.2.2 O~AN.2.2
BAK Beginning Segment for Purchase Order Acknowledgment: M353 M587 M324 M373 O328 O326 O~AN.1.30 O~AN.1.50 O~DT.8.8 O~AN.2.2
W05 Shipping Order Identification: M473 M324=Depositor_Order_Number O324 O~R.6.6 O~AN.1.22 O640 O~AN.1.2 O~AN.2.2
G17 Item Detail - Invoice: M~R.1.15 M355 O~R.1.9 O~AN.12.12 O235 O234 O235 O234 O~AN.1.3 O~R.1.10 O~AN.2.2 O~AN.1.16 O~AN.1.16 O~R.1.18
AT9 AT9: O~R.4.5 O~R.1.8 O~R.1.8 O~AN.1.2 O~AN.1.1 O~R.1.10 O~AN.1.1 O~R.1.8
IN2 IN2: M~AN.2.2 M~AN.1.60 O~AN.1.60
RPA Rate Amounts or Percents: M~AN.1.2 O~R.1.18 O~R.1.9 OC001 O~R.1.10
RTT RTT: M~AN.2.2 M~R.1.9
VEH Vehicle Information: O~R.1.6 O~AN.1.30 O~R.4.4 O~AN.2.2 O~AN.1.50 O~AN.1.50 O~AN.1.50 O~R.1.8 O~AN.1.50 O~AN.2.2 O~AN.1.30 O~AN.1.1 O~N2.1.15 O~AN.1.1 O~N2.1.15 O~AN.1.2 O~AN.2.3 O~AN.1.60 O~AN.2.3
`,
    composites: `
C030 Position in Segment: M722 O1528 O1686
C056 Composite Race or Ethnicity Information: O1109 X1270 X1271
`,
  },
  '003060': {
    elements: `
373 DT 6 6 Date
370 DT 6 6 Terms Discount Due Date
388 DT 6 6 Terms Deferred Due Date
446 DT 6 6 Terms Net Due Date
58 N2 1 9 Charge
67 AN 2 20 Identification Code
74 N2 2 10 Declared Value
93 AN 1 35 Name
98 ID 2 2 Entity Identifier Code
107 ID 1 1 Payment Method Code
165 N0 1 2 Stop Sequence Number
166 AN 1 35 Address Information
234 AN 1 40 Product/Service ID
806 ID 4 4 EPA Waste Stream Number Code
807 ID 14 16 Waste Characteristics Code
`,
    segments: `
B2 Beginning Segment for Shipment Information Transaction: O375 O140 O154 O~R.5.5 O~AN.1.13 O145 O~AN.1.1 M~AN.2.2 O~AN.1.1 O~AN.1.1 O~AN.1.1 O~AN.1.1 O~AN.1.1 O~AN.1.1 O~AN.1.2 O~R.1.3 O~AN.1.1 O~AN.2.2 O~AN.3.3 O~AN.3.3
Y6 Y6: O~AN.2.2 M~AN.1.20 M~DT.6.6
C2 C2: M~AN.1.1 M~AN.1.2 M~AN.2.20 O~AN.3.9 O~AN.6.17 O~AN.1.1 O~DT.6.6
C3 Currency: M100 O280 O100
G62 Date/Time: O432 O373 O176 O337 O623 O~R.2.2
R3 Carrier Detail: M140 M133 O19 O91 O~AN.6.9 O~AN.1.22 O~DT.6.6 O~N2.1.15 O~AN.1.45 O~AN.2.2 O~AN.2.2 O~AN.2.2
H6 H6: O~AN.2.10 O~AN.2.10 O~R.1.3 O~AN.1.1 O~R.1.10 O~AN.1.1
SDQ Destination Quantity: MC001 O66 M67 M380 X67 X380 X67 X380 X67 X380 X67 X380 X67 X380 X67 X380 X67 X380 X67 X380 X67 X380 O310
L1 Rate and Charges: O213 X60 X122 X58 X191 X117 O120 O150 O121 O39 O16 O276 O257 X74 X122 O372 X220 X221 O954 O100
L4 Measurement: M82 M189 M65 M90 O380
LH2 Hazardous Classification Information: O215 O983 O218 O222 O759 X355 X408
LH3 Hazardous Material Shipping Name: X224 X984 O985
LFH Freeform Hazardous Material Information: M808 M809 O809 O1023
LEP EPA Required Data: O806 O807
LH4 Canadian Dangerous Requirements: O238 O364 O254 O230 O230 O230 O271 X267 O805 O986 O364
CD3 CD3: O~AN.1.2 O~R.1.10 O~AN.2.3 O~N1.1.4 O~AN.2.2 O~AN.1.2 O~AN.2.2 O~N2.1.9 O~AN.2.2 O~N2.1.9 O~AN.2.2 O~AN.2.2 O~AN.3.3 O~AN.2.3
L9 L9: M~AN.3.3 M~R.1.15
`,
  },
};

/**
 * Meanings of the codes of a few identifier elements, for people reading a document (the
 * console's rendering, docs/console.md). Validation never reads this: which codes an element
 * allows is the implementation's `codes`; this only says what a code stands for. Elements and
 * codes not listed have no meaning here, and a reader shows the bare code.
 *
 * Source: every meaning is the one the OopFactory X12 Parser's X12 005010 segment set gives
 * (`<QualifierSet Id="<element>">`, `<Allowed ID="<code>">meaning</Allowed>`):
 * https://github.com/Inteligenz/X12Parser, src/OopFactory.X12/Specifications/Ansi-5010Specification.xml,
 * commit 9f8cd51f2911dc87a64beae158a386065e1ce017 (CDDL-1.0). The lines used are checked in as
 * test/fixtures/x12/code-names/ansi-5010-extract.txt (scripts/x12-code-names-extract.mjs), and
 * test/unit/x12/impl/code-names.test.ts checks every meaning here against them. The meanings are
 * those of release 005010; a 004010 document is read with the same words.
 */
const table = (lines: string): Readonly<Record<string, string>> =>
  Object.fromEntries(
    lines
      .trim()
      .split('\n')
      .map((l) => {
        const at = l.indexOf(' ');
        return [l.slice(0, at).trim(), l.slice(at + 1).trim()];
      }),
  );

const codeNames: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  // Transaction Set Purpose Code
  '353': table(`
00 Original
01 Cancellation
05 Replace
06 Confirmation
07 Duplicate
18 Reissue`),
  // Purchase Order Type Code
  '92': table(`
BK Blanket Order (Quantity Firm)
CN Consigned Order
DS Dropship
NE New Order
RL Release or Delivery Order
RO Rush Order
SA Stand-alone Order`),
  // Unit or Basis for Measurement Code
  '355': table(`
BX Box
CA Case
CT Carton
DZ Dozen
EA Each
FT Foot
KG Kilogram
LB Pound
PK Package
PL Pallet/Unit Load`),
  // Entity Identifier Code
  '98': table(`
BT Bill-to-Party
BY Buying Party (Purchaser)
RI Remit To
SE Selling Party
SF Ship From
ST Ship To
SU Supplier/Manufacturer
VN Vendor`),
  // Product/Service ID Qualifier
  '235': table(`
BP Buyer's Part Number
EN GTIN-13
IN Buyer's Item Number
SK Stock Keeping Unit (SKU)
UK GTIN-14
UP GTIN-12
VN Vendor's (Seller's) Item Number
VP Vendor's (Seller's) Part Number`),
  // Identification Code Qualifier
  '66': table(`
1 D-U-N-S Number, Dun & Bradstreet
9 D-U-N-S+4, D-U-N-S Number with Four Character Suffix
91 Assigned by Seller or Seller's Agent
92 Assigned by Buyer or Buyer's Agent
UL Global Location Number (GLN)`),
  // Reference Identification Qualifier
  '128': table(`
BM Bill of Lading Number
DP Department Number
IA Internal Vendor Number
IV Seller's Invoice Number
PO Purchase Order Number
VR Vendor ID Number
ZZ Mutually Defined`),
  // Date/Time Qualifier
  '374': table(`
002 Delivery Requested
010 Requested Ship
011 Shipped
017 Estimated Delivery
037 Ship Not Before
038 Ship No Later
063 Do Not Deliver After
064 Do Not Deliver Before`),
  // Functional Identifier Code
  '479': table(`
CA Purchase Order Change Acknowledgment/Request - Seller Initiated (865)
CD Credit/Debit Adjustment (812)
FA Functional or Implementation Acknowledgment Transaction Sets (997, 999)
GF Response to a Load Tender (990)
IB Inventory Inquiry/Advice (846)
IM Motor Carrier Freight Details and Invoice (210, 980)
IN Invoice Information (810)
OW Warehouse Shipping Order (940)
PC Purchase Order Change Request - Buyer Initiated (860)
PO Purchase Order (850)
PR Purchase Order Acknowledgment (855)
QM Transportation Carrier Shipment Status Message (214)
RA Payment Order/Remittance Advice (820)
SH Ship Notice/Manifest (856)
SM Motor Carrier Load Tender (204)
SW Warehouse Shipping Advice (945)`),
  // Functional Group Acknowledge Code
  '715': table(`
A Accepted
E Accepted, But Errors Were Noted.
M Rejected, Message Authentication Code (MAC) Failed
P Partially Accepted, At Least One Transaction Set Was Rejected
R Rejected
W Rejected, Assurance Failed Validity Tests
X Rejected, Content After Decryption Could Not Be Analyzed`),
  // Functional Group Syntax Error Code
  '716': table(`
1 Functional Group Not Supported
2 Functional Group Version Not Supported
3 Functional Group Trailer Missing
4 Group Control Number in the Functional Group Header and Trailer Do Not Agree
5 Number of Included Transaction Sets Does Not Match Actual Count
6 Group Control Number Violates Syntax
19 Functional Group Control Number not Unique within Interchange`),
  // Transaction Set Acknowledgment Code
  '717': table(`
A Accepted
E Accepted But Errors Were Noted
M Rejected, Message Authentication Code (MAC) Failed
R Rejected
W Rejected, Assurance Failed Validity Tests
X Rejected, Content After Decryption Could Not Be Analyzed`),
  // Transaction Set Syntax Error Code
  '718': table(`
1 Transaction Set Not Supported
2 Transaction Set Trailer Missing
3 Transaction Set Control Number in Header and Trailer Do Not Match
4 Number of Included Segments Does Not Match Actual Count
5 One or More Segments in Error
6 Missing or Invalid Transaction Set Identifier
7 Missing or Invalid Transaction Set Control Number
23 Transaction Set Control Number Not Unique within the Functional Group`),
  // Segment Syntax Error Code
  '720': table(`
1 Unrecognized segment ID
2 Unexpected segment
3 Mandatory segment missing
4 Loop Occurs Over Maximum Times
5 Segment Exceeds Maximum Use
6 Segment Not in Defined Transaction Set
7 Segment Not in Proper Sequence
8 Segment Has Data Element Errors`),
  // Data Element Syntax Error Code
  '723': table(`
1 Mandatory data element missing
2 Conditional required data element missing.
3 Too many data elements.
4 Data element too short.
5 Data element too long.
6 Invalid character in data element.
7 Invalid code value.
8 Invalid Date
9 Invalid Time
10 Exclusion Condition Violated`),
};

/** Every element's code meanings (a copy), for the source check. */
export function codeMeaningTable(): Record<string, Record<string, string>> {
  return Object.fromEntries(Object.entries(codeNames).map(([element, codes]) => [element, { ...codes }]));
}

/** What `code` stands for in data element `reference` ("353", "717"), or undefined when not listed. */
export function codeMeaning(reference: string, code: string): string | undefined {
  return codeNames[reference]?.[code];
}

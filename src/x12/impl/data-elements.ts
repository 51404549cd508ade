/**
 * Data element dictionary, release 004010, as compact data: one line per element,
 * `reference type minLength maxLength Name`. Later releases are overlays in `data-overlays.ts`.
 */
export const elements004010 = `
2 N0 1 6 Number of Accepted Transaction Sets
3 AN 1 60 Free-Form Message
12 AN 2 35 Billing Code
16 ID 1 1 Charge Method of Payment
19 AN 2 30 City Name
21 ID 1 1 Work Order Status Code
22 AN 1 30 Commodity Code
23 ID 1 1 Commodity Code Qualifier
24 ID 4 4 Equipment Type
26 ID 2 3 Country Code
28 N0 1 9 Group Control Number
32 DT 8 8 Invoice Due Date
39 ID 1 1 Special Charge or Allowance Code
40 ID 2 2 Equipment Description Code
46 AN 4 4 Ex Parte
54 ID 2 2 Risk of Loss Code
55 AN 2 10 Flight/Voyage Number
56 ID 2 2 Type of Service Code
58 N2 1 12 Charge
59 AN 2 5 Freight Class Code
60 R 1 9 Freight Rate
61 AN 1 30 Free-Form Message
62 AN 4 10 Hazardous Material Code
63 AN 1 24 Hazardous Material Contact
64 AN 2 30 Hazardous Material Description
65 R 1 8 Height
66 ID 1 2 Identification Code Qualifier
67 AN 2 80 Identification Code
71 N0 1 3 Inquiry Request Number
74 N2 2 12 Declared Value
76 AN 1 22 Invoice Number
77 N0 1 3 Flashpoint Temperature
79 AN 1 50 Lading Description
80 N0 1 7 Lading Quantity
81 R 1 10 Weight
82 R 1 8 Length
86 N0 1 3 Total Equipment
87 AN 1 48 Marks and Numbers
88 ID 1 2 Marks and Numbers Qualifier
90 ID 1 1 Measurement Unit Qualifier
91 ID 1 2 Transportation Method/Type Code
92 ID 2 2 Purchase Order Type Code
93 AN 1 60 Name
96 N0 1 10 Number of Included Segments
97 N0 1 6 Number of Transaction Sets Included
98 ID 2 3 Entity Identifier Code
100 ID 3 3 Currency Code
102 ID 1 1 Ownership Code
103 AN 3 5 Packaging Code
106 ID 1 1 Responsible Person Code
107 ID 1 2 Payment Method Code
113 AN 1 4 Pier Number
114 AN 2 24 Port Name
115 ID 1 1 Port or Terminal Function Code
116 ID 3 15 Postal Code
117 N2 1 9 Prepaid Amount
118 R 1 9 Rate
119 AN 1 6 Rate Basis Number
120 AN 3 9 Rate Combination Point
121 ID 1 3 Rate Class Code
122 ID 2 2 Rate/Value Qualifier
123 N0 1 6 Number of Received Transaction Sets
127 AN 1 30 Reference Identification
128 ID 2 3 Reference Identification Qualifier
133 ID 1 2 Routing Sequence Code
140 ID 2 4 Standard Carrier Alpha Code
143 ID 3 3 Transaction Set Identifier Code
145 AN 1 30 Shipment Identification Number
146 ID 2 2 Shipment Method of Payment
147 ID 1 1 Shipment Qualifier
150 ID 3 3 Special Charge or Allowance Code
152 ID 2 3 Special Handling Code
153 AN 2 30 Special Handling Description
154 ID 6 9 Standard Point Location Code
156 ID 2 2 State or Province Code
161 ID 1 4 Proof of Delivery Code
163 ID 2 2 Stop Reason Code
165 N0 1 3 Stop Sequence Number
166 AN 1 55 Address Information
167 N0 3 8 Tare Weight
168 ID 1 4 Tariff Agency Code
169 AN 1 16 Tariff Item Number
170 N0 1 2 Tariff Item Part
171 AN 1 7 Tariff Number
172 AN 1 2 Tariff Supplement Identifier
173 AN 1 4 Tariff Item Number Suffix
174 AN 2 30 Terminal Name
176 ID 1 2 Time Qualifier
182 AN 2 28 Vessel Name
183 R 1 8 Volume
184 ID 1 1 Volume Unit Qualifier
187 ID 1 2 Weight Qualifier
188 ID 1 1 Weight Unit Code
189 R 1 8 Width
190 ID 1 1 Accomplish Code
191 N2 1 9 Advances
193 N2 1 12 Net Amount Due
194 ID 1 1 Customs Documentation Handling Code
200 AN 1 6 Hazardous Materials Page
202 ID 2 2 Correction Indicator
205 R 1 6 Weight Allowance
206 AN 1 4 Equipment Initial
207 AN 1 10 Equipment Number
208 ID 1 1 Hazardous Material Code Qualifier
209 AN 1 4 Hazardous Material Class Code
211 ID 3 3 Packaging Form Code
212 R 1 17 Unit Price
213 N0 1 3 Lading Line Item Number
215 ID 1 30 Hazardous Classification
218 ID 14 40 Hazardous Placard Notation
219 AN 1 3 Position
220 R 1 11 Billed/Rated-as Quantity
221 ID 2 2 Billed/Rated-as Qualifier
222 ID 4 25 Hazardous Endorsement
224 AN 1 25 Hazardous Material Shipping Name
225 AN 2 15 Seal Number
227 ID 1 2 Tariff Distance
230 ID 1 3 Subsidiary Classification
232 N0 2 6 Weight Allowance
234 AN 1 48 Product/Service ID
235 ID 2 2 Product/Service ID Qualifier
236 ID 3 3 Price Identifier Code
238 AN 1 12 Emergency Response Plan Number
241 ID 1 4 Protective Service Code
242 ID 1 7 Vent Instruction Code
248 ID 1 1 Allowance or Charge Indicator
249 ID 1 1 Vessel Requirement Code
254 ID 1 3 Packing Group Code
257 ID 1 1 Tariff Application Code
267 N0 1 6 Net Explosive Quantity
271 ID 1 2 Subsidiary Risk Indicator
272 ID 1 1 Hazardous Certification Code
273 AN 1 25 Hazardous Certification Declaration
274 ID 1 1 Hazardous Material Description Code
276 AN 2 25 Special Charge Description
277 ID 6 6 UN/NA Identification Code
280 R 4 10 Exchange Rate
284 ID 2 2 Service Level Code
285 AN 1 22 Depositor Order Number
286 ID 2 2 Product/Service Condition Code
289 N0 1 2 Multiple Price Quantity
294 N0 1 5 Tariff Distance
295 ID 1 1 Distance Qualifier
301 ID 1 4 Car Type Code
304 ID 2 2 Shipment Status Code
305 ID 1 2 Transaction Handling Code
306 ID 1 2 Action Code
309 ID 1 2 Location Qualifier
310 AN 1 30 Location Identifier
319 AN 3 6 Temperature Control
324 AN 1 22 Purchase Order Number
325 AN 1 20 Tax Identification Number
326 AN 1 45 Request Reference Number
327 AN 1 8 Change Order Sequence Number
328 AN 1 30 Release Number
329 AN 4 9 Transaction Set Control Number
330 R 1 15 Quantity Ordered
331 ID 2 2 Allowance or Charge Method of Handling Code
332 R 1 6 Percent
333 ID 1 2 Terms Basis Date Code
334 ID 2 2 Transportation Terms Qualifier Code
335 ID 3 3 Transportation Terms Code
336 ID 2 2 Terms Type Code
337 TM 4 8 Time
338 R 1 6 Terms Discount Percent
342 R 1 5 Percent of Invoice Payable
344 ID 2 2 Unit of Time Period or Interval
345 ID 2 2 Lead Time Code
346 ID 2 2 Application Type
347 R 1 10 Hash Total
349 ID 1 1 Item Description Type
350 AN 1 20 Assigned Identification
351 N0 1 3 Terms Discount Days Due
352 AN 1 80 Description
353 ID 2 2 Transaction Set Purpose Code
354 N0 1 6 Number of Line Items
355 ID 2 2 Unit or Basis for Measurement Code
356 N0 1 6 Pack
357 R 1 8 Size
358 R 1 10 Quantity Invoiced
360 R 1 10 Total Quantity Ordered
362 N2 1 10 Terms Discount Amount
363 ID 3 3 Note Reference Code
364 AN 1 80 Communication Number
365 ID 2 2 Communication Number Qualifier
366 ID 2 2 Contact Function Code
367 AN 1 30 Contract Number
368 ID 2 2 Shipment/Order Status Code
369 AN 1 45 Free-form Description
370 DT 8 8 Terms Discount Due Date
371 ID 2 2 Change Reason Code
372 ID 1 1 Charge Description Code
373 DT 8 8 Date
374 ID 3 3 Date/Time Qualifier
375 ID 2 2 Tariff Service Code
378 ID 1 1 Allowance/Charge Percent Qualifier
380 R 1 15 Quantity
381 R 1 10 Quantity Ordered
382 R 1 10 Number of Units Shipped
383 R 1 9 Quantity Difference
384 R 1 9 Gross Weight per Pack
385 R 1 9 Gross Volume per Pack
386 N0 1 3 Terms Net Days
387 AN 1 35 Routing
388 DT 8 8 Terms Deferred Due Date
389 N2 1 10 Deferred Amount Due
395 R 1 8 Unit Weight
396 AN 2 30 Shipment Identification
397 AN 1 10 Color
399 ID 1 1 Pallet Exchange Code
400 ID 2 2 Unit Load Option Code
406 N0 1 3 Quantity of Pallets Shipped
407 ID 2 2 Seal Status Code
408 R 1 4 Temperature
416 N0 6 6 Pallet Block and Tiers
426 ID 2 2 Adjustment Reason Code
432 ID 2 2 Date Qualifier
433 ID 2 2 F.O.B. Point Code
434 AN 1 30 F.O.B. Point
438 AN 12 12 U.P.C. Case Code
441 ID 1 1 Tax Exempt Code
443 AN 1 20 Contact Inquiry Reference
446 DT 8 8 Terms Net Due Date
447 AN 1 6 Loop Identifier Code
451 AN 1 12 Warehouse Lot Number
458 AN 2 25 Dunnage Description
460 ID 1 1 Shipment Weight Code
472 AN 6 6 Link Sequence Number
473 ID 1 1 Order Status Code
474 AN 1 22 Master Reference Number
478 ID 1 1 Credit/Debit Flag Code
479 ID 2 2 Functional Identifier Code
480 AN 1 12 Version / Release / Industry Identifier Code
481 ID 1 2 Trace Type Code
482 ID 2 2 Payment Action Code
499 AN 1 10 Condition Value
501 ID 2 2 Customs Documentation Handling Code
506 ID 2 2 (DFI) ID Number Qualifier
507 AN 3 12 (DFI) Identification Number
508 AN 1 35 Account Number
509 AN 10 10 Originating Company Identifier
510 AN 9 9 Originating Company Supplemental Code
514 ID 1 1 Reporting Code
522 ID 1 3 Amount Qualifier Code
531 AN 1 12 Agent Shipment ID Number
548 ID 1 1 Rate Value Qualifier
554 N0 1 6 Assigned Number
558 ID 1 1 Reservation Action Code
559 ID 2 2 Agency Qualifier Code
560 ID 2 10 Special Services Code
563 ID 1 2 Sales Requirement Code
566 ID 1 2 Product/Service Substitution Code
567 N0 4 5 Equipment Length
569 ID 1 3 Account Number Qualifier
571 ID 1 1 Type of Load
587 ID 2 2 Acknowledgment Type
591 ID 3 3 Payment Method Code
595 ID 1 1 Compartment ID Code
597 AN 1 8 Vessel Code
610 N2 1 15 Amount
618 ID 1 3 Implementation Transaction Set Syntax Error Code
620 ID 1 3 Implementation Segment Syntax Error Code
621 ID 1 3 Implementation Data Element Syntax Error Code
623 ID 2 2 Time Code
625 ID 1 1 COD Method of Payment Code
628 AN 1 12 Hierarchical ID Number
639 ID 2 2 Basis of Unit Price Code
640 ID 2 2 Transaction Type Code
641 ID 3 3 Status Reason Code
646 R 1 15 Quantity Shipped to Date
648 ID 3 3 Price Multiplier Qualifier
649 R 1 10 Multiplier
653 ID 3 3 Discount Terms Type Code
654 ID 2 2 Discount Base Qualifier
655 R 1 10 Discount Base Value
656 ID 2 3 Discount Control Limit Qualifier
657 R 1 10 Discount Control Limit
659 ID 1 2 Basis of Verification Code
662 ID 1 1 Relationship Code
665 ID 1 1 Residue Indicator Code
668 ID 2 2 Line Item Status Code
669 ID 3 3 Currency Market/Exchange Code
670 ID 2 2 Change or Response Type Code
671 R 1 9 Quantity Left to Receive
673 ID 2 2 Quantity Qualifier
687 ID 2 2 Class of Trade Code
688 ID 2 2 Restrictions/Conditions Qualifier
704 ID 1 2 Paperwork/Report Action Code
706 ID 2 2 Entity Relationship Code
715 ID 1 1 Functional Group Acknowledge Code
716 ID 1 3 Functional Group Syntax Error Code
717 ID 1 1 Transaction Set Acknowledgment Code
718 ID 1 3 Transaction Set Syntax Error Code
719 N0 1 6 Segment Position in Transaction Set
720 ID 1 3 Segment Syntax Error Code
721 ID 2 3 Segment ID Code
722 N0 1 2 Element Position in Segment
723 ID 1 3 Data Element Syntax Error Code
724 AN 1 99 Copy of Bad Data Element
725 N0 1 4 Data Element Reference Number
728 ID 1 2 Returnable Container Load Make-Up Code
729 AN 1 6 Category
731 ID 2 2 Transit Direction Code
732 ID 2 2 Transit Time Direction Qualifier
733 R 1 4 Transit Time
734 AN 1 12 Hierarchical Parent ID Number
735 ID 1 2 Hierarchical Level Code
736 ID 1 1 Hierarchical Child Code
737 ID 2 2 Measurement Reference ID Code
738 ID 1 3 Measurement Qualifier
739 R 1 20 Measurement Value
740 R 1 20 Range Minimum
741 R 1 20 Range Maximum
750 ID 2 3 Product/Process Characteristic Code
751 AN 1 12 Product Description Code
752 ID 2 2 Surface/Layer/Position Code
753 ID 1 5 Packaging Characteristic Code
754 AN 1 7 Packaging Description Code
755 ID 2 2 Report Type Code
756 ID 1 2 Report Transmission Code
757 N0 1 2 Report Copies Needed
759 ID 2 2 Reportable Quantity Code
761 N0 1 1 Equipment Number Check Digit
765 N0 1 2 Day of Month
770 AN 1 20 Option Number
782 R 1 18 Monetary Amount
786 ID 2 2 Security Level Code
790 AN 1 132 Entity Title
791 AN 1 80 Entity Purpose
792 ID 1 1 Entity Status Code
799 AN 1 30 Version Identifier
805 AN 1 25 Canadian Hazardous Notation
806 ID 4 6 EPA Waste Stream Number Code
807 ID 12 16 Waste Characteristics Code
808 ID 3 3 Hazardous Material Shipment Information Qualifier
809 AN 1 25 Hazardous Material Shipment Information
810 N0 1 6 Inner Pack
812 ID 1 10 Payment Format Code
819 ID 2 3 Language Code
822 AN 1 15 Source Subqualifier
828 R 1 9 Dollar Basis For Percent
854 ID 2 2 Vessel Type Code
890 ID 2 2 Carrier/Route Change Reason Code
891 ID 2 2 Shipping Date Change Reason Code
892 ID 2 2 Line Item Change Reason Code
893 ID 1 1 Warehouse Detail Adjustment Identifier Code
897 ID 1 1 Vessel Code Qualifier
933 AN 1 264 Free-Form Message Text
934 ID 2 2 Printer Carriage Control Code
935 ID 2 2 Measurement Significance Code
936 ID 2 2 Measurement Attribute Code
951 ID 1 2 Balance Type Code
954 R 1 10 Percent
955 ID 2 2 Tax Jurisdiction Code Qualifier
956 AN 1 10 Tax Jurisdiction Code
963 ID 2 2 Tax Type Code
983 ID 1 1 Hazardous Class Qualifier
984 ID 1 1 Hazardous Material Shipping Name Qualifier
985 ID 3 3 N.O.S. Indicator Code
986 ID 1 1 Special Commodity Indicator Code
1000 ID 2 2 Service Characteristics Qualifier
1004 ID 1 2 Percent Qualifier
1005 ID 4 4 Hierarchical Structure Code
1018 R 1 15 Exponent
1019 ID 3 3 Invoice Type Code
1023 ID 1 1 Hazard Zone Code
1024 N0 1 2 Number of Tank Compartments
1025 ID 1 1 Loading or Discharge Location Code
1026 ID 3 3 Vessel Material Code
1030 ID 3 3 Gasket Type Code
1031 ID 3 3 Trailer Lining Type Code
1033 ID 1 2 Reason Code
1035 AN 1 35 Name Last or Organization Name
1036 AN 1 25 Name First
1037 AN 1 25 Name Middle
1038 AN 1 10 Name Prefix
1039 AN 1 10 Name Suffix
1042 ID 2 2 Load or Device Code
1043 R 1 2 Diameter
1044 ID 3 3 Hose Type Code
1045 ID 2 2 Inlet or Outlet Material Type Code
1046 ID 2 2 Inlet or Outlet Fitting Type Code
1047 ID 2 2 Miscellaneous Equipment Code
1048 ID 1 3 Business Function Code
1056 AN 1 6 Quantity Difference
1057 ID 2 2 Unit Type
1065 ID 1 1 Entity Type Qualifier
1066 ID 1 2 Citizenship Status Code
1067 ID 1 1 Marital Status Code
1068 ID 1 1 Gender Code
1069 ID 1 1 Yes/No Condition or Response Code
1070 ID 1 1 Free Goods Condition
1073 ID 1 1 Yes/No Condition or Response Code
1077 ID 1 2 Product/Service Substitution Code
1096 AN 5 5 County Designator
1106 ID 2 2 Address Component Qualifier
1109 ID 1 1 Race or Ethnicity Code
1136 ID 2 2 Code Category
1166 ID 2 2 Contract Type Code
1179 ID 1 1 Customs Entry Type Group Code
1195 AN 1 80 Financial Information Code
1196 ID 2 2 Breakdown Structure Detail Code
1232 ID 2 2 Purchase Category
1250 ID 2 3 Date Time Period Format Qualifier
1251 AN 1 35 Date Time Period
1261 AN 1 30 Freight Rate Basis
1262 ID 2 2 Delivery Type
1270 ID 1 3 Code List Qualifier Code
1271 AN 1 30 Industry Code
1272 AN 1 10 Weight Unit
1280 ID 1 1 Direction Identifier Code
1283 ID 1 2 Lading Exception Code
1300 ID 4 4 Service, Promotion, Allowance, or Charge Code
1301 AN 1 10 Agency Service, Promotion, Allowance, or Charge Code
1309 ID 2 2 Acquisition Data Code
1310 ID 1 1 Financing Type Code
1321 ID 2 2 Condition Indicator
1322 ID 1 1 Certification Type Code
1330 AN 1 10 Promotion/Deal Number
1373 ID 2 4 Measurement Method or Device
1375 AN 1 5 Interim Hazardous Material Regulatory Number
1401 ID 1 3 Proposal Data Detail Identifier Code
1430 AN 1 7 Day Rotation
1470 N0 1 9 Number
1525 ID 1 2 Request Category Code
1528 N0 1 2 Component Data Element Position in Composite
1551 AN 1 4096 Textual Data
1650 ID 2 2 Shipment Status Code
1651 ID 2 2 Shipment Status or Appointment Reason Code
1652 ID 2 2 Shipment Appointment Status Code
1653 ID 2 2 Shipment Status or Appointment Reason Code
1654 ID 7 7 Longitude Code
1655 ID 7 7 Latitude Code
1686 N0 1 4 Repeating Data Element Position
1705 AN 1 35 Implementation Convention Reference
9998 AN 1 35 Context Reference
9999 AN 1 35 Context Name
`;

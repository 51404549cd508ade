/**
 * Data element dictionary, release 004010, as compact data: one line per element,
 * `reference type minLength maxLength Name`. Later releases are overlays in `data-overlays.ts`.
 */
export const elements004010 = `
2 N0 1 6 Number of Accepted Transaction Sets
12 AN 2 35 Billing Code
16 ID 1 1 Charge Method of Payment
19 AN 2 30 City Name
21 ID 1 1 Work Order Status Code
22 AN 1 30 Commodity Code
23 ID 1 1 Commodity Code Qualifier
24 ID 4 4 Equipment Type
26 ID 2 3 Country Code
28 N0 1 9 Group Control Number
32 N2 1 12 Net Amount Due
39 ID 1 1 Special Charge or Allowance Code
40 ID 2 2 Equipment Description Code
46 ID 1 1 Ex Parte
54 ID 2 2 Risk of Loss Code
56 ID 1 1 Type of Service Code
58 N2 1 12 Charge
59 N0 1 4 Item Number
60 R 1 15 Freight Rate
61 AN 1 30 Free-Form Message
62 AN 1 10 Hazardous Material Code
63 AN 1 30 Hazardous Material Description
64 AN 1 30 Hazardous Material Shipping Name
65 R 1 8 Height
66 ID 1 2 Identification Code Qualifier
67 AN 2 80 Identification Code
71 ID 1 1 Inquiry Request Code
74 ID 1 1 Declared Value Code
76 AN 1 22 Invoice Number
77 ID 1 1 Packing Group Code
79 AN 1 50 Lading Description
80 N0 1 7 Lading Quantity
81 R 1 10 Weight
82 R 1 8 Length
86 N0 1 4 Total Equipment
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
116 ID 3 15 Postal Code
117 R 1 8 Declared Value
118 R 1 9 Rate
119 ID 1 2 Percent Qualifier
120 R 1 11 Rate/Value Qualifier
121 N2 1 12 Tariff Value
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
153 ID 2 2 Special Services Code
154 ID 6 9 Standard Point Location Code
156 ID 2 2 State or Province Code
161 ID 1 4 Proof of Delivery Code
163 ID 2 2 Stop Reason Code
165 N0 1 3 Stop Sequence Number
166 AN 1 55 Address Information
167 R 1 8 Tare Weight
168 ID 1 2 Tariff Agency Code
169 AN 1 4 Tariff Section
170 AN 1 4 Tariff Item Number
171 AN 1 7 Tariff Number
172 AN 1 2 Tariff Supplement Identifier
173 AN 1 4 Tariff Item Number Suffix
176 ID 2 2 Time Qualifier
183 R 1 8 Volume
184 ID 1 1 Volume Unit Qualifier
187 ID 1 2 Weight Qualifier
188 ID 1 1 Weight Unit Code
189 R 1 8 Width
190 ID 1 1 Accomplish Code
191 ID 1 1 Billed/Rated as Qualifier
193 N2 1 12 Net Amount Due
194 ID 1 1 Customs Documentation Handling Code
200 ID 1 1 Hazardous Materials Page
202 N2 1 12 Correction Indicator
205 R 1 6 Weight Allowance
206 AN 1 4 Equipment Initial
207 AN 1 10 Equipment Number
208 ID 1 1 Hazardous Material Code Qualifier
209 AN 1 4 Hazardous Material Class Code
211 ID 3 5 Packaging Form Code
212 R 1 17 Unit Price
213 N0 1 3 Lading Line Item Number
219 ID 1 1 Position
220 R 1 11 Billed/Rated-as Quantity
221 ID 2 2 Billed/Rated-as Qualifier
225 AN 2 15 Seal Number
227 ID 1 2 Tariff Distance
232 R 1 6 Dunnage
234 AN 1 48 Product/Service ID
235 ID 2 2 Product/Service ID Qualifier
236 ID 3 3 Price Identifier Code
241 AN 1 30 Protective Service Code
248 ID 1 1 Allowance or Charge Indicator
254 ID 4 4 Packing Group
257 ID 1 2 Vehicle Ventilation Code
271 ID 2 2 Industry Code
274 ID 1 1 Hazardous Material Description Code
276 AN 1 4 Special Charge Description
280 R 4 10 Exchange Rate
284 ID 1 2 Service Level Code
289 N0 1 2 Multiple Price Quantity
294 AN 1 3 Tariff Column
295 ID 1 2 Tariff Distance Unit Code
301 ID 1 1 Car Type Code
304 ID 2 2 Shipment Status Code
305 ID 1 2 Transaction Handling Code
306 ID 1 2 Action Code
309 ID 1 2 Location Qualifier
310 AN 1 30 Location Identifier
319 ID 1 1 Temperature Control
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
396 AN 2 30 Shipment Identification
399 N0 1 3 Pallet Exchange
400 ID 2 2 Unit Load Option Code
406 N0 1 3 Quantity of Pallets Shipped
407 ID 2 2 Seal Status Code
426 ID 2 2 Adjustment Reason Code
432 ID 2 2 Date Qualifier
438 AN 1 6 Vendor Ordered
441 ID 1 1 Tax Exempt Code
443 AN 1 20 Contact Inquiry Reference
446 DT 8 8 Terms Net Due Date
447 AN 1 6 Loop Identifier Code
458 AN 1 30 Dunnage Description
473 ID 1 2 Order Status Code
478 ID 1 1 Credit/Debit Flag Code
479 ID 2 2 Functional Identifier Code
480 AN 1 12 Version / Release / Industry Identifier Code
481 ID 1 2 Trace Type Code
482 ID 2 2 Payment Action Code
499 AN 1 10 Condition Value
501 ID 1 1 Customs Shipment Value Content Code
506 ID 2 2 (DFI) ID Number Qualifier
507 AN 3 12 (DFI) Identification Number
508 AN 1 35 Account Number
509 AN 10 10 Originating Company Identifier
510 AN 9 9 Originating Company Supplemental Code
522 ID 1 3 Amount Qualifier Code
548 ID 1 1 Rate Value Qualifier
554 N0 1 6 Assigned Number
558 ID 1 1 Reservation Action Code
559 ID 2 2 Agency Qualifier Code
560 ID 2 2 Special Services Code
563 ID 1 1 Sales Requirement Code
567 N0 1 2 Equipment Length
569 ID 1 3 Account Number Qualifier
571 ID 1 1 Type of Load
587 ID 2 2 Acknowledgment Type
591 ID 3 3 Payment Method Code
595 AN 2 4 Compartment ID Code
610 N2 1 15 Amount
618 ID 1 3 Implementation Transaction Set Syntax Error Code
620 ID 1 3 Implementation Segment Syntax Error Code
621 ID 1 3 Implementation Data Element Syntax Error Code
623 ID 2 2 Time Code
628 AN 1 12 Hierarchical ID Number
639 ID 2 2 Basis of Unit Price Code
640 ID 2 2 Transaction Type Code
641 ID 3 3 Status Reason Code
646 R 1 15 Quantity Shipped to Date
648 ID 3 3 Price Multiplier Qualifier
649 R 1 10 Multiplier
653 ID 2 2 Discount Terms Type Code
654 ID 2 2 Discount Base Qualifier
655 R 1 10 Discount Base Value
656 ID 2 2 Discount Control Limit Qualifier
657 R 1 10 Discount Control Limit
662 ID 1 1 Relationship Code
668 ID 2 2 Line Item Status Code
669 ID 3 3 Currency Market/Exchange Code
670 ID 2 2 Change or Response Type Code
671 R 1 9 Quantity Left to Receive
673 ID 2 2 Quantity Qualifier
687 ID 2 2 Class of Trade Code
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
731 ID 1 1 Transit Direction Code
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
761 AN 1 2 Equipment Number Check Digit
765 N0 1 2 Day of Month
770 AN 1 20 Option Number
782 R 1 18 Monetary Amount
786 ID 2 2 Security Level Code
810 N0 1 6 Inner Pack
812 ID 1 10 Payment Format Code
819 ID 2 3 Language Code
822 AN 1 15 Source Subqualifier
828 R 1 9 Dollar Basis For Percent
933 AN 1 264 Free-Form Message Text
934 ID 2 2 Printer Carriage Control Code
935 ID 2 2 Measurement Significance Code
936 ID 2 2 Measurement Attribute Code
954 R 1 10 Percent
955 ID 2 2 Tax Jurisdiction Code Qualifier
956 AN 1 10 Tax Jurisdiction Code
963 ID 2 2 Tax Type Code
1000 ID 2 2 Service Characteristics Qualifier
1004 N2 1 15 Amount
1005 ID 4 4 Hierarchical Structure Code
1018 R 1 15 Exponent
1019 ID 3 3 Invoice Type Code
1033 ID 1 2 Reason Code
1035 AN 1 35 Name Last or Organization Name
1036 AN 1 25 Name First
1037 AN 1 25 Name Middle
1038 AN 1 10 Name Prefix
1039 AN 1 10 Name Suffix
1048 ID 1 3 Business Function Code
1056 AN 1 6 Quantity Difference
1057 ID 2 2 Unit Type
1065 ID 1 1 Entity Type Qualifier
1069 ID 1 1 Yes/No Condition or Response Code
1070 ID 1 1 Free Goods Condition
1073 ID 1 1 Yes/No Condition or Response Code
1077 ID 1 2 Product/Service Substitution Code
1166 ID 2 2 Contract Type Code
1179 ID 1 1 Customs Entry Type Group Code
1232 ID 2 2 Purchase Category
1250 ID 2 3 Date Time Period Format Qualifier
1251 AN 1 35 Date Time Period
1261 AN 1 30 Freight Rate Basis
1262 ID 2 2 Delivery Type
1270 ID 1 3 Code List Qualifier Code
1271 AN 1 30 Industry Code
1272 AN 1 10 Weight Unit
1280 R 1 11 Measurement Value
1283 ID 1 2 Lading Exception Code
1300 ID 4 4 Service, Promotion, Allowance, or Charge Code
1301 AN 1 10 Agency Service, Promotion, Allowance, or Charge Code
1330 AN 1 10 Promotion/Deal Number
1373 ID 2 4 Measurement Method or Device
1470 N0 1 9 Number
1525 ID 1 2 Request Category Code
1528 N0 1 2 Component Data Element Position in Composite
1650 ID 2 2 Shipment Status Code
1651 ID 2 2 Shipment Status or Appointment Reason Code
1652 ID 2 2 Shipment Appointment Status Code
1653 ID 2 2 Shipment Status or Appointment Reason Code
1654 ID 2 2 Latitude Direction Code
1655 R 1 7 Latitude
1686 N0 1 4 Repeating Data Element Position
1705 AN 1 35 Implementation Convention Reference
9998 AN 1 35 Context Reference
9999 AN 1 35 Context Name
`;

/**
 * The operator console in a real browser: Debian's chromium (deploy/chromium.sh installs it)
 * driven by playwright-core, against the service's roles on the real stack, over documents that
 * went through the pipeline (an inbound 850 with its 997, an outbound 810 uploaded over SFTP, an
 * outbound 810 to a sandbox). Every page is scanned with axe-core (no serious or critical
 * violation), and the screenshots of docs/console.md are taken here: into docs/console with
 * TDX_UPDATE_SCREENSHOTS=1, else into a temporary folder (a test run leaves the checkout as it was).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path, { posix } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigDocument } from '../../../src/domain/configuration.ts';
import type { StoredTransaction } from '../../../src/domain/records.ts';
import { uniqueId } from '../helpers/env.ts';
import { eventually } from '../helpers/isolated-config.ts';
import { connectSftp, sftpSettings } from '../helpers/sftp.ts';
import { interchange, po850, startPipeline, type Pipeline } from '../pipeline/support.ts';

const root = path.resolve(import.meta.dirname, '../../..');
const updateShots = process.env['TDX_UPDATE_SCREENSHOTS'] === '1';
const shots = updateShots ? path.join(root, 'docs', 'console') : mkdtempSync(path.join(tmpdir(), 'tdx-console-shots-'));
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const base = uniqueId('cons');
const dir = (name: string): string => posix.join(base, name);
const call = <T>(fn: (cb: (err: Error | null | undefined, v?: T) => void) => void): Promise<T> => new Promise((ok, fail) => fn((err, v) => (err ? fail(err) : ok(v as T))));

const po = `PO-${base.slice(-6).toUpperCase()}`;
let p: Pipeline;
let browser: Browser;
let consoleDir: string;
let inbound: StoredTransaction;
let flagged: StoredTransaction;
let ack: StoredTransaction;
let invoice: StoredTransaction;

const invoiceDoc = (n: string): Record<string, unknown> => ({
  heading: { beginning_segment_for_invoice_BIG: { date_01: '2026-03-05', invoice_number_02: `INV-${n}`, purchase_order_number_04: po } },
  detail: { baseline_item_data_invoice_IT1_loop: [{ baseline_item_data_invoice_IT1: { assigned_identification_01: '1', quantity_invoiced_02: 10, unit_or_basis_for_measurement_code_03: 'EA', unit_price_04: 2.5, product_service_id_qualifier_06: 'VN', product_service_id_07: 'W-1' } }] },
  summary: { total_monetary_value_summary_TDS: { amount_01: 25 }, transaction_totals_CTT: { number_of_line_items_01: 1 } },
});

function configDoc(): ConfigDocument {
  const s = sftpSettings();
  const privateKey = s.privateKeyPath ? readFileSync(s.privateKeyPath, 'utf8') : undefined;
  const settings = [
    { transactionSetIdentifier: '850', release: '004010', direction: 'inbound' as const, usageIndicator: 'P' as const, implementation: 'po' },
    { transactionSetIdentifier: '810', release: '004010', direction: 'outbound' as const, usageIndicator: 'P' as const, implementation: 'inv' },
  ];
  return {
    envelopes: [
      { name: 'us', external: false, interchangeExtid: 'US', interchangeExtidQualifier: 'ZZ', applicationCode: 'US' },
      { name: 'them', external: true, interchangeExtid: 'PARTNER', interchangeExtidQualifier: 'ZZ', applicationCode: 'PARTNER' },
      { name: 'sandy', external: true, interchangeExtid: 'SANDY', interchangeExtidQualifier: 'ZZ', applicationCode: 'SANDY' },
    ],
    connections: [
      { name: 'ship', kind: 'sftp', host: s.host, port: s.port, username: s.username, ...(privateKey ? { privateKey } : {}), ...(s.password ? { password: s.password } : {}), inboundDirectory: dir('in'), outboundDirectory: dir('out') },
      { name: 'sandbox', kind: 'sandbox' },
    ],
    implementations: [
      { name: 'po', version: '1', status: 'published', transactionSet: { identifier: '850', release: '004010' }, definition: { base: true } },
      { name: 'inv', version: '1', status: 'published', transactionSet: { identifier: '810', release: '004010' }, definition: { base: true } },
    ],
    partners: [
      { key: 'SHIP', name: 'Ship Co', deliveryMethod: 'polling', connection: 'ship', frequency: 0, generateAcknowledgments: true, trackAcknowledgments: true, envelopes: { internal: 'us', external: 'them' }, transactionSets: settings },
      { key: 'SANDY', name: 'Sandbox partner', deliveryMethod: 'polling', connection: 'sandbox', envelopes: { internal: 'us', external: 'sandy' }, transactionSets: settings.filter((x) => x.direction === 'outbound') },
    ],
  };
}

async function submit810(partner: string, n: string): Promise<StoredTransaction> {
  const r = await p.submitDocument(partner, { transactionSetIdentifier: '810', document: invoiceDoc(n) });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const [t] = await p.settled(r.body['traceGuid'] as string, 1);
  return t!;
}

beforeAll(async () => {
  // the console as `npm run build` makes it, into a folder of this test
  consoleDir = mkdtempSync(path.join(tmpdir(), 'tdx-console-'));
  execFileSync(process.execPath, [path.join(root, 'console', 'build.mjs'), consoleDir], { stdio: 'pipe' });
  const executablePath = execFileSync('bash', [path.join(root, 'deploy', 'chromium.sh')], { encoding: 'utf8' }).trim();
  const session = await connectSftp();
  try {
    await call<void>((cb) => session.sftp.mkdir(base, cb));
    for (const d of ['in', 'out']) await call<void>((cb) => session.sftp.mkdir(dir(d), cb));
  } finally {
    session.end();
  }
  [p, browser] = await Promise.all([startPipeline(configDoc(), { env: { TDX_CONSOLE_DIR: consoleDir }, sharedKeyspace: true }), chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })]);
  // a second order whose BEG05 is month 13: delivered with an invalid_date warning
  const badDate = { id: '850', control: '0002', segments: [{ id: 'BEG', elements: ['00', 'SA', `${po}-D`, '', '20261301'] }, ...po850(po).segments.slice(1)] };
  const r = await p.submitEdi('SHIP', interchange({ control: Math.floor(Math.random() * 1e8), groups: [{ sets: [po850(po), badDate] }] }));
  expect(r.status).toBe(202);
  const [settled, made] = await Promise.all([p.settled(r.body['traceGuid'] as string, 3), submit810('SHIP', base), submit810('SANDY', base)]);
  inbound = settled.find((t) => t.transactionSetIdentifier === '850' && t.reference === po)!;
  flagged = settled.find((t) => t.reference === `${po}-D`)!;
  ack = settled.find((t) => t.transactionSetIdentifier === '997')!;
  invoice = made;
  mkdirSync(shots, { recursive: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await p?.stop();
  if (consoleDir) rmSync(consoleDir, { recursive: true, force: true });
  if (!updateShots) rmSync(shots, { recursive: true, force: true });
});

/** A fresh browser session (its own sessionStorage) signed in with `key` through the address. */
async function signedIn(key: string, opts: { width?: number; dark?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  // bypassCSP lets the test inject axe-core; the console itself runs under its policy
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: opts.width ?? 1280, height: 900 }, colorScheme: opts.dark ? 'dark' : 'light' });
  const page = await context.newPage();
  await page.goto(`${p.url}/console#key=${encodeURIComponent(key)}`);
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return { context, page };
}

/** axe-core's serious and critical violations of the page as it is now. */
async function violations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  // a string: the page's globals (document, axe) are not this process's types
  const found = await page.evaluate<{ id: string; impact: string | null; help: string; targets: string[] }[]>(
    `axe.run(document).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => JSON.stringify(n.target)) })))`,
  );
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
}

const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: false });

describe('console', () => {
  it('signs in from #key=, keeps the key out of the address, cookies and localStorage, and shows the overview', async () => {
    const { context, page } = await signedIn(p.keys.standard);
    expect(page.url()).not.toContain(p.keys.standard);
    expect(page.url()).toMatch(/\/console#\/$/);
    expect(await page.evaluate('({ cookie: document.cookie, local: localStorage.length })')).toEqual({ cookie: '', local: 0 });
    expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(p.keys.standard);
    await page.getByRole('heading', { name: /Overview/ }).waitFor();
    const row = page.getByRole('region', { name: 'Documents by partner and status' }).getByRole('row', { name: /SHIP inbound/ });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/SHIP\s*inbound\s*2\s*0\s*0/);
    expect(await violations(page)).toEqual([]);
    await shot(page, 'overview');
    await context.close();
  });

  it('finds a transaction by reference, reads a segment by name and an element code by meaning, and follows the trace', async () => {
    const { context, page } = await signedIn(p.keys.standard);
    await page.getByRole('link', { name: 'Transactions' }).click();
    await page.getByLabel('Reference').fill(po);
    await page.getByRole('button', { name: 'Search' }).click();
    const rows = page.getByRole('region', { name: 'Transaction list' }).getByRole('row');
    // the prefix finds both orders
    await eventually(async () => ((await rows.count()) === 3 ? true : undefined), 15_000, 'two transaction rows');
    expect(await violations(page)).toEqual([]);
    await shot(page, 'transactions');
    await page.getByRole('link', { name: `Transaction ${po}`, exact: true }).click();
    await page.getByRole('heading', { name: new RegExp(`850 inbound .*${po}`) }).waitFor();
    expect(page.url()).toContain(`#/transactions/${inbound.id}`);
    const beg = page.locator('li[data-segment="BEG"]');
    await beg.locator('summary').waitFor();
    expect(await beg.locator('.seg-name').textContent()).toBe('Beginning Segment for Purchase Order');
    await beg.locator('summary').click();
    expect(await beg.locator('dt[data-element="BEG02"]').textContent()).toContain('Purchase Order Type Code');
    expect(await beg.locator('dt[data-element="BEG02"] + dd').textContent()).toContain('Stand-alone Order');
    // a loop is indented under its set
    const po1 = page.locator('li[data-segment="PO1"]');
    expect(await po1.textContent()).toContain('loop PO1');
    expect(await page.getByRole('region', { name: 'JSON' }).or(page.locator('pre[aria-label="JSON document"]')).first().textContent()).toContain(po);
    expect(await violations(page)).toEqual([]);
    await shot(page, 'transaction');
    await page.getByRole('link', { name: inbound.traceGuid }).click();
    await page.getByRole('heading', { name: `Trace ${inbound.traceGuid}` }).waitFor();
    const steps = page.getByRole('list', { name: 'Steps of the run' }).locator('li.step');
    await steps.first().waitFor();
    expect(await steps.count()).toBeGreaterThanOrEqual(2);
    // the 997 the run generated is one of the trace's documents
    await page.getByRole('link', { name: /997 outbound/ }).waitFor();
    await page.getByRole('button', { name: /^Payload of / }).first().click();
    await page.getByText('Shape of the payload').waitFor();
    expect(await violations(page)).toEqual([]);
    await shot(page, 'trace');
    // the 997's elements read as words: AK501 A is "Accepted"
    await page.getByRole('link', { name: /997 outbound/ }).click();
    // one AK2 loop per order of the interchange; the first answers the order read above
    const ak5 = page.locator('li[data-segment="AK5"]').first();
    await ak5.locator('summary').click();
    expect(await ak5.locator('dt[data-element="AK501"] + dd').textContent()).toMatch(/^A\s*Accepted$/);
    expect(page.url()).toContain(ack.id);
    await context.close();
  });

  it('sorts the transactions both ways with the API\'s order extension, keeping filters, the address and the parameters the list takes', async () => {
    // the order parameter is the transaction list's extension, marked so in the served document;
    // the other lists keep their one order
    const doc = await p.api('/platform/openapi.json');
    const paths = doc.body['paths'] as Record<string, Record<string, { parameters?: { name: string; in: string; schema?: { enum?: string[] }; 'x-tdx-extension'?: string }[] }>>;
    const paramsOf = (list: string) => (paths[list]!['get']!.parameters ?? []).filter((x) => x.in === 'query');
    const order = paramsOf('/platform/edi_transactions').find((x) => x.name === 'order');
    expect(order?.schema?.enum).toEqual(['desc', 'asc']);
    expect(typeof order?.['x-tdx-extension']).toBe('string');
    for (const list of ['/platform/results', '/platform/feed_entries', '/platform/logs']) expect(paramsOf(list).filter((x) => /sort|order/i.test(x.name)), list).toEqual([]);
    const taken = new Set(paramsOf('/platform/edi_transactions').map((x) => x.name));

    const { context, page } = await signedIn(p.keys.standard);
    const sent: URLSearchParams[] = [];
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (u.pathname === '/platform/edi_transactions') sent.push(u.searchParams);
    });
    // the Transactions page's own requests (the overview, loaded first, asks other page sizes)
    const last = (): URLSearchParams | undefined => sent.filter((q) => q.get('limit') === '50').at(-1);
    const list = page.getByRole('region', { name: 'Transaction list' });
    const created = page.getByRole('columnheader', { name: 'Created' });
    const newest = page.getByRole('button', { name: 'Newest first' });
    const oldest = page.getByRole('button', { name: 'Oldest first' });
    /** The ids of the rows shown, once `n` rows are there. */
    const shown = async (n: number): Promise<string[]> => {
      await eventually(async () => ((await list.locator('tbody tr').count()) === n ? true : undefined), 15_000, `${n} transaction rows`);
      return Promise.all((await list.locator('tbody tr td:first-child a').all()).map(async (a) => ((await a.getAttribute('href')) ?? '').replace('#/transactions/', '')));
    };
    /** Waits until the rows shown are `want`, in that order. */
    const rowsAre = async (want: string[]): Promise<void> => {
      await eventually(async () => (JSON.stringify(await shown(want.length)) === JSON.stringify(want) ? true : undefined), 15_000, `rows ${want.join(', ')}`);
    };
    const times = async (): Promise<number[]> => Promise.all((await list.locator('tbody time').all()).map(async (t) => Date.parse((await t.getAttribute('datetime')) ?? '')));

    // the default: newest first, and the request is the contract's (no order parameter)
    await page.goto(`${p.url}/console#/transactions?partner=SHIP`);
    // the two orders, the 997 and the invoice of SHIP
    const desc = await shown(4);
    expect(new Set(desc)).toEqual(new Set([inbound.id, flagged.id, ack.id, invoice.id]));
    const descTimes = await times();
    expect(new Set(descTimes).size, 'rows of different times').toBeGreaterThan(1);
    expect(descTimes, 'newest first').toEqual([...descTimes].sort((a, b) => b - a));
    expect(await newest.getAttribute('aria-pressed')).toBe('true');
    expect(await oldest.getAttribute('aria-pressed')).toBe('false');
    expect(await created.getAttribute('aria-sort')).toBe('descending');
    expect(last()?.get('partner')).toBe('SHIP');
    expect(last()?.has('order')).toBe(false);

    // oldest first: the whole list reversed (ties of createdAt included, the API orders by id
    // both ways), the order in the address, the filter kept, order=asc sent
    await oldest.click();
    await page.getByText('Oldest first over the whole list').waitFor();
    expect(page.url()).toContain('order=asc');
    expect(page.url()).toContain('partner=SHIP');
    await rowsAre([...desc].reverse());
    const ascTimes = await times();
    expect(ascTimes, 'oldest first').toEqual([...ascTimes].sort((a, b) => a - b));
    expect(await oldest.getAttribute('aria-pressed')).toBe('true');
    expect(await created.getAttribute('aria-sort')).toBe('ascending');
    expect(last()?.get('order')).toBe('asc');
    expect(last()?.get('partner')).toBe('SHIP');
    expect(await violations(page)).toEqual([]);

    // a filter searched from the oldest-first list keeps the order; so does a reload of the address
    await page.getByLabel('Direction').selectOption('inbound');
    await page.getByRole('button', { name: 'Search' }).click();
    await eventually(() => (page.url().includes('direction=inbound') ? true : undefined), 15_000, 'the filter in the address');
    expect(page.url()).toContain('order=asc');
    const inboundAsc = await shown(2);
    expect(inboundAsc).toEqual(desc.filter((x) => x === inbound.id || x === flagged.id).reverse());
    expect(inboundAsc.length).toBe(2);
    await page.reload();
    await rowsAre(inboundAsc);
    expect(await oldest.getAttribute('aria-pressed')).toBe('true');

    // and back: newest first leaves the parameter out again
    await newest.click();
    await eventually(() => (page.url().includes('order=') ? undefined : true), 15_000, 'the order out of the address');
    expect(page.url()).toContain('direction=inbound');
    await rowsAre([...inboundAsc].reverse());
    expect(await created.getAttribute('aria-sort')).toBe('descending');
    expect(last()?.has('order')).toBe(false);

    // every parameter the page sent is one the list takes
    for (const q of sent) for (const name of q.keys()) expect(taken, `parameter ${name}`).toContain(name);
    await context.close();
  });

  it('marks the segment and element a warning names', async () => {
    const { context, page } = await signedIn(p.keys.standard);
    await page.goto(`${p.url}/console#/transactions/${flagged.id}`);
    await page.getByText('invalid_date').first().waitFor();
    const beg = page.locator('li[data-segment="BEG"]');
    // the interchange holds both orders; the page shows this one's set
    await page.getByText('holds 1 other transaction set(s)').waitFor();
    expect(await beg.getAttribute('class')).toContain('flagged');
    await beg.locator('summary').click();
    const date = beg.locator('dt[data-element="BEG05"] + dd');
    expect(await date.getAttribute('class')).toBe('flagged');
    expect(await date.textContent()).toContain('20261301');
    // the other segments carry no mark
    expect(await page.locator('li.seg.flagged').count()).toBe(1);
    await context.close();
  });

  it('resends an outbound document and shows the resend count rise and the replay budget left', async () => {
    const { context, page } = await signedIn(p.keys.standard);
    await page.goto(`${p.url}/console#/transactions/${invoice.id}`);
    const count = page.getByTestId('resend-count');
    await count.waitFor();
    expect(await count.textContent()).toBe('0');
    await page.getByRole('button', { name: 'Resend to the partner' }).click();
    const message = page.getByTestId('replay-message');
    await message.waitFor();
    expect(await message.textContent()).toMatch(/\d+ of \d+ replays left this minute/);
    await eventually(async () => ((await count.textContent()) === '1' ? true : undefined), 15_000, 'the resend count to read 1');
    expect(await violations(page)).toEqual([]);
    await shot(page, 'resend');
    await context.close();
  });

  it("shows a read-only key's resend refused, and the count unchanged", async () => {
    const { context, page } = await signedIn(p.keys.readOnly);
    await page.goto(`${p.url}/console#/transactions/${invoice.id}`);
    const count = page.getByTestId('resend-count');
    await count.waitFor();
    const before = await count.textContent();
    await page.getByRole('button', { name: 'Resend to the partner' }).click();
    const message = page.getByTestId('replay-message');
    await message.waitFor();
    expect(await message.textContent()).toMatch(/^Refused \(403 forbidden\): This key may not do this/);
    const stored = await p.api(`/platform/edi_transactions/${invoice.id}`);
    expect(String(stored.body['resendCount'])).toBe(before);
    await context.close();
  });

  it('shows a sandbox key only what its sandbox received', async () => {
    const { context, page } = await signedIn(p.keys.sandbox);
    const nav = page.getByRole('navigation', { name: 'Sections' });
    expect((await nav.getByRole('link').allTextContents()).map((s) => s.trim())).toEqual(['Results']);
    await page.getByText('This is a sandbox key').waitFor();
    const table = page.getByRole('region', { name: 'Result list' });
    await table.waitFor();
    const partners = await table.locator('tbody tr td:nth-child(2)').allTextContents();
    expect(partners.length).toBeGreaterThan(0);
    expect(new Set(partners)).toEqual(new Set(['SANDY']));
    // a transaction's address shows the same sandbox view, not the transaction
    await page.goto(`${p.url}/console#/transactions/${inbound.id}`);
    await page.getByText('This is a sandbox key').waitFor();
    expect(await page.getByText(po).count()).toBe(0);
    expect(await violations(page)).toEqual([]);
    await shot(page, 'sandbox');
    await context.close();
  });

  it('feed, errors and partners pages, at desktop width in the dark theme and at phone width', async () => {
    const dark = await signedIn(p.keys.standard, { dark: true });
    await dark.page.goto(`${p.url}/console#/feed`);
    await dark.page.getByRole('region', { name: 'Feed entries' }).getByRole('row', { name: /SHIP/ }).first().waitFor({ timeout: 20_000 });
    expect(await violations(dark.page)).toEqual([]);
    await shot(dark.page, 'feed-dark');
    await dark.page.getByRole('link', { name: 'Errors' }).click();
    await dark.page.getByRole('heading', { name: 'Errors' }).waitFor();
    await dark.page.getByText(/No results\.|trace/).first().waitFor();
    expect(await violations(dark.page)).toEqual([]);
    await dark.page.getByRole('link', { name: 'Partners' }).click();
    await dark.page.getByText('Sandbox partner', { exact: true }).waitFor();
    const text = await dark.page.locator('main').textContent();
    expect(text).toContain('SANDY');
    expect(text).not.toMatch(/PRIVATE KEY|privateKey|password/);
    expect(await violations(dark.page)).toEqual([]);
    await shot(dark.page, 'partners-dark');
    await dark.context.close();

    const phone = await signedIn(p.keys.standard, { width: 390 });
    await phone.page.goto(`${p.url}/console#/transactions/${inbound.id}`);
    await phone.page.locator('li[data-segment="BEG"]').waitFor();
    // nothing wider than the screen but the tables' own scrolling boxes
    expect(await phone.page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    expect(await violations(phone.page)).toEqual([]);
    await shot(phone.page, 'transaction-phone');
    await phone.context.close();
  });
});

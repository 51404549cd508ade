/**
 * Link-local addresses (IPv4 169.254.0.0/16, IPv6 fe80::/10) host cloud metadata services
 * (169.254.169.254 and friends). A webhook URL pointing there would let a configuration file
 * make the service read its own instance credentials, so such URLs are refused when the file is
 * checked, and the webhook sender refuses a host name that resolves there at call time.
 *
 * Pure string parsing (no `node:net`), so the configuration checks in the domain can use it.
 */

/** Parses a dotted-quad IPv4 address into its four bytes; undefined when it is not one. */
function ipv4Bytes(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    bytes.push(n);
  }
  return bytes;
}

/** Parses an IPv6 address (optionally bracketed, with a zone or an embedded IPv4 tail) into eight 16-bit groups. */
function ipv6Groups(text: string): number[] | undefined {
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return undefined;
  // an embedded IPv4 tail (::ffff:169.254.1.1) becomes two groups
  const lastColon = s.lastIndexOf(':');
  const tail = s.slice(lastColon + 1);
  if (tail.includes('.')) {
    const b = ipv4Bytes(tail);
    if (!b) return undefined;
    s = `${s.slice(0, lastColon + 1)}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const parse = (h: string): number[] | undefined => {
    if (h === '') return [];
    const out: number[] = [];
    for (const g of h.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parse(halves[0]!);
  const rest = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !rest) return undefined;
  if (halves.length === 1) return head.length === 8 ? head : undefined;
  const missing = 8 - head.length - rest.length;
  if (missing < 1) return undefined;
  return [...head, ...new Array<number>(missing).fill(0), ...rest];
}

/**
 * True when `address` (an IP literal as written in a URL host, or as a resolver returns it) is
 * link-local: IPv4 169.254.0.0/16, IPv6 fe80::/10, or an IPv4-mapped/compatible IPv6 form of a
 * link-local IPv4 address. Host names are never link-local here (they are checked once resolved).
 */
export function isLinkLocalAddress(address: string): boolean {
  const v4 = ipv4Bytes(address);
  if (v4) return v4[0] === 169 && v4[1] === 254;
  const g = ipv6Groups(address);
  if (!g) return false;
  if ((g[0]! & 0xffc0) === 0xfe80) return true;
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible)
  const zeros = g.slice(0, 5).every((x) => x === 0);
  if (zeros && (g[5] === 0xffff || g[5] === 0)) return g[6] === 0xa9fe;
  return false;
}

/**
 * Why a webhook URL may not be used, or undefined when it may. Relies on the WHATWG URL parser's
 * normalisation, so decimal, octal and hexadecimal spellings of an IPv4 address
 * (`http://2852039166/`, `http://0xa9.0xfe.0xa9.0xfe/`) are recognised as the address they are.
 */
export function webhookUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a valid URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (isLinkLocalAddress(parsed.hostname)) {
    return `points at the link-local address ${parsed.hostname} (169.254.0.0/16, fe80::/10), where cloud metadata services answer; webhooks may not call it`;
  }
  return undefined;
}

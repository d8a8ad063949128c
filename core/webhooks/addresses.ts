/**
 * Where a webhook may go (docs/webhooks.md, "Safety"): the address ranges a delivery must never
 * reach unless the operator allows local targets, and the checks of an endpoint URL. The same
 * rules judge a literal address when an endpoint is saved and every resolved address at delivery
 * (the sender: adapters/webhooks), so that the two cannot drift apart.
 */

/** An address range: its first bytes and prefix length, and what it is. */
interface Range {
  prefix: number[];
  bits: number;
  kind: string;
}

const v4: Range[] = [
  { prefix: [0], bits: 8, kind: 'unspecified' },
  { prefix: [10], bits: 8, kind: 'private' },
  { prefix: [100, 64], bits: 10, kind: 'shared (carrier-grade NAT)' },
  { prefix: [127], bits: 8, kind: 'loopback' },
  { prefix: [169, 254], bits: 16, kind: 'link-local (cloud metadata)' },
  { prefix: [172, 16], bits: 12, kind: 'private' },
  { prefix: [192, 0, 0], bits: 24, kind: 'reserved' },
  { prefix: [192, 0, 2], bits: 24, kind: 'documentation' },
  { prefix: [192, 168], bits: 16, kind: 'private' },
  { prefix: [198, 18], bits: 15, kind: 'reserved' },
  { prefix: [198, 51, 100], bits: 24, kind: 'documentation' },
  { prefix: [203, 0, 113], bits: 24, kind: 'documentation' },
  { prefix: [224], bits: 4, kind: 'multicast' },
  { prefix: [240], bits: 4, kind: 'reserved' },
];

const v6: Range[] = [
  // Local-use NAT64 (RFC 8215): translated to IPv4 addresses of the operator's choosing, private ones among them.
  { prefix: [0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], bits: 48, kind: 'private (local-use NAT64)' },
  { prefix: [0x01, 0x00, 0, 0, 0, 0, 0, 0], bits: 64, kind: 'reserved (discard-only)' },
  { prefix: [0x20, 0x01, 0x00, 0x00], bits: 32, kind: 'reserved (Teredo)' },
  { prefix: [0xfc], bits: 7, kind: 'private (unique local, cloud metadata)' },
  { prefix: [0xfe, 0x80], bits: 10, kind: 'link-local' },
  { prefix: [0xfe, 0xc0], bits: 10, kind: 'private (site-local)' },
  { prefix: [0xff], bits: 8, kind: 'multicast' },
  { prefix: [0x20, 0x01, 0x0d, 0xb8], bits: 32, kind: 'documentation' },
];

function inRange(bytes: number[], range: Range): boolean {
  for (let bit = 0; bit < range.bits; bit++) {
    const mask = 0x80 >> bit % 8;
    if ((bytes[Math.floor(bit / 8)]! & mask) !== ((range.prefix[Math.floor(bit / 8)] ?? 0) & mask)) return false;
  }
  return true;
}

/** The four bytes of a dotted IPv4 address; null for anything else. */
function ipv4Bytes(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null;
  return parts.map(Number);
}

/** The sixteen bytes of an IPv6 address (without brackets or zone); null for anything else. */
function ipv6Bytes(text: string): number[] | null {
  let head = text;
  let tail: number[] = [];
  // A dotted IPv4 address at the end (::ffff:127.0.0.1) is the last two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4bytes = ipv4Bytes(dotted[2]!);
    if (!v4bytes) return null;
    head = `${dotted[1]}0:0`;
    tail = v4bytes;
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const [left, right = null] = [groups(halves[0]!), halves.length === 2 ? groups(halves[1]!) : null];
  const missing = 8 - left.length - (right?.length ?? 0);
  if ((right === null && missing !== 0) || (right !== null && missing < 1)) return null;
  const all = [...left, ...Array<string>(right === null ? 0 : missing).fill('0'), ...(right ?? [])];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  const bytes = all.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

/**
 * What a literal IP address is when a webhook must not reach it (`loopback`, `private`, ...), or
 * null for a public address. IPv4 inside IPv6 (mapped, NAT64, 6to4, compatible) is judged as the
 * IPv4 address it carries. Not an address at all: null (a host name is judged once resolved).
 */
export function forbiddenAddressKind(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const four = ipv4Bytes(bare);
  if (four) return v4.find((range) => inRange(four, range))?.kind ?? (four.every((b) => b === 255) ? 'broadcast' : null);
  const six = ipv6Bytes(bare);
  if (!six) return null;
  if (six.every((b) => b === 0)) return 'unspecified';
  if (six.slice(0, 15).every((b) => b === 0) && six[15] === 1) return 'loopback';
  const carried =
    six.slice(0, 10).every((b) => b === 0) && ((six[10] === 0xff && six[11] === 0xff) || (six[10] === 0 && six[11] === 0)) // mapped, compatible
      ? six.slice(12)
      : six[0] === 0x00 && six[1] === 0x64 && six[2] === 0xff && six[3] === 0x9b && six.slice(4, 12).every((b) => b === 0) // 64:ff9b::/96
        ? six.slice(12)
        : six[0] === 0x20 && six[1] === 0x02 // 2002::/16, 6to4
          ? six.slice(2, 6)
          : null;
  if (carried) return forbiddenAddressKind(carried.join('.'));
  // IPv4-translated (::ffff:0:a.b.c.d, RFC 2765): an IPv4 address by another spelling, refused whatever it carries.
  if (six.slice(0, 8).every((b) => b === 0) && six[8] === 0xff && six[9] === 0xff && six[10] === 0 && six[11] === 0) return 'reserved (IPv4-translated)';
  return v6.find((range) => inRange(six, range))?.kind ?? null;
}

/** Whether a string is a literal IP address (v4 or v6, bracketed or not). */
export function isIpLiteral(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  return ipv4Bytes(bare) !== null || ipv6Bytes(bare) !== null;
}

/** Names that mean this machine or a cloud's metadata service, whatever DNS says. */
const localNames = /^(localhost|.*\.localhost|metadata\.google\.internal|metadata)\.?$/i;

/** What the operator allows beyond public https targets: plain http, and local or private addresses (for local testing). */
export interface WebhookTargetPolicy {
  allowHttp: boolean;
  allowPrivateAddresses: boolean;
}

export const maxWebhookUrlLength = 2048;

/**
 * The endpoint URL to store: the parsed URL's own spelling (the host in ASCII, the path
 * percent-encoded), which is what webhookUrlProblem checked and what the sender parses again, so no
 * character of the client's text that the parser dropped or changed is kept or shown.
 */
export function webhookUrlToStore(text: string): string {
  return new URL(text).href;
}

/**
 * Why an endpoint URL is refused when it is saved, as a message for the field `url`; null when it
 * is accepted. A host name is not resolved here (the core has no DNS): the sender checks the
 * addresses it resolves to at every delivery.
 */
export function webhookUrlProblem(text: string, policy: WebhookTargetPolicy): string | null {
  if (text.length > maxWebhookUrlLength) return `must be at most ${maxWebhookUrlLength} characters`;
  // The URL parser strips or mends these (a leading ESC, a TAB inside); refused, so what is checked is what was sent.
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(text)) return 'must not contain control or bidirectional-override characters';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The parser's own message says nothing a client can act on; this says what is wanted.
    return 'must be an absolute URL such as https://hooks.example.com/marketkit';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    return policy.allowHttp ? 'must start with https:// or http://' : 'must start with https:// (this server does not send webhooks over plain http)';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.hash) return 'must not have a #fragment';
  if (policy.allowPrivateAddresses) return null;
  const host = url.hostname;
  if (localNames.test(host)) return `must not point at this machine or a metadata service (${host})`;
  const kind = forbiddenAddressKind(host);
  if (kind) return `must not point at a ${kind} address (${host})`;
  return null;
}

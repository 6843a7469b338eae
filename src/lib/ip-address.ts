// IP addresses and ranges, shared by the SSRF guard (src/providers/upstream-guard.ts) and the
// client-address logic behind reverse proxies (src/http/client-address.ts). Every address is held
// as a 128-bit IPv6 number, IPv4 as ::ffff:a.b.c.d, so one range check covers both families and
// IPv4-mapped IPv6 (::ffff:127.0.0.1, what a dual-stack socket reports) needs no case.

export const V4_MAPPED = 0xffffn << 32n;

/** A range of addresses: the first `bits` bits of `base` (IPv4 ranges are counted in IPv6 bits). */
export type IpRange = { base: bigint; bits: number };

export function parseIPv4(s: string): bigint | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  let n = 0n;
  for (const part of m.slice(1)) {
    const v = Number(part);
    if (v > 255 || (part.length > 1 && part.startsWith("0"))) return null;
    n = (n << 8n) | BigInt(v);
  }
  return V4_MAPPED | n;
}

export function parseIPv6(input: string): bigint | null {
  let s = input.toLowerCase().replace(/%.*$/, "");
  if (!/^[0-9a-f:.]+$/.test(s)) return null;
  // A trailing dotted quad (::ffff:127.0.0.1) stands for the last two groups.
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (lastColon < 0) return null;
  if (s.includes(".", lastColon)) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    const low = Number(v4 & 0xffffffffn);
    tail = [low >>> 16, low & 0xffff];
    s = s.slice(0, lastColon + 1);
    if (!s.endsWith("::")) s = s.slice(0, -1);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  const count = head.length + rest.length + tail.length;
  if (halves.length === 2 ? count > 7 : count !== 8) return null;
  const zeros: number[] = Array(halves.length === 2 ? 8 - count : 0).fill(0);
  const all = [...head.map((g) => parseInt(g, 16)), ...zeros, ...rest.map((g) => parseInt(g, 16)), ...tail];
  return all.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n);
}

/** An IP literal as a 128-bit number (IPv4 mapped into IPv6), or null when it is not one. */
export function parseIp(s: string): bigint | null {
  const bare = s.startsWith("[") && s.endsWith("]") ? s.slice(1, -1) : s;
  return parseIPv4(bare) ?? (bare.includes(":") ? parseIPv6(bare) : null);
}

/** A CIDR known to be well formed (the constants of this code base). */
export function cidr(text: string): IpRange {
  const [addr, len] = text.split("/") as [string, string];
  const ip = parseIp(addr)!;
  const bits = Number(len) + (addr.includes(":") ? 0 : 96);
  return { base: ip, bits };
}

/** An operator's `ip` or `ip/length` (IPv4 or IPv6), or null when it is neither. */
export function parseIpRange(raw: string): IpRange | null {
  const text = raw.trim().toLowerCase();
  const [addr, len, extra] = text.split("/");
  const ip = addr ? parseIp(addr) : null;
  if (ip === null || extra !== undefined) return null;
  if (len === undefined) return { base: ip, bits: 128 };
  const max = addr!.includes(":") ? 128 : 32;
  if (!/^\d{1,3}$/.test(len) || Number(len) > max) return null;
  return cidr(`${addr}/${len}`);
}

export function inRange(ip: bigint, r: IpRange): boolean {
  const shift = BigInt(128 - r.bits);
  return ip >> shift === r.base >> shift;
}

export function isIPv4(ip: bigint): boolean {
  return ip >> 32n === 0xffffn;
}

/** An IPv4 address as a.b.c.d (the mapped prefix dropped). */
export function formatIPv4(ip: bigint): string {
  const n = Number(ip & 0xffffffffn);
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

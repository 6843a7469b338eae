import { formatIPv4, inRange, type IpRange, isIPv4, parseIp, parseIPv4 } from "../lib/ip-address";
import { requestMeta } from "./request-meta";

/** The client of a request that came with no peer address: an in-process call (tests). */
export const LOCAL_CLIENT = "local";

// A header of thousands of hops is not walked to its end: past this many trusted hops, the
// leftmost one looked at is taken as the client.
const MAX_HOPS = 32;
// An entry that is no address (`unknown`, garbage a proxy passed on) is kept as a name, this long.
const MAX_NAME_CHARS = 64;

/**
 * The address a request comes from, for per-client limits: the TCP peer, or, when the peer is one
 * of HONE_TRUSTED_PROXIES, what the proxies wrote in X-Forwarded-For. Worked out once per request.
 */
export function clientAddress(request: Request, trustedProxies: readonly IpRange[]): string {
  const meta = requestMeta(request);
  meta.clientAddress ??= resolveClientAddress(meta.peer, request.headers.get("x-forwarded-for"), trustedProxies);
  return meta.clientAddress;
}

/**
 * X-Forwarded-For is believed only from a trusted peer, since any client can send one. Each proxy
 * appends the address it was connected from, so the header is read from the right: trusted proxies
 * are skipped, and the first address that is not one is the client (what lies left of it the
 * client may have written itself). IPv6 clients are counted per /64, the block one host is given.
 */
export function resolveClientAddress(peer: string | undefined, forwardedFor: string | null, trustedProxies: readonly IpRange[]): string {
  if (!peer) return LOCAL_CLIENT;
  const peerIp = parseIp(peer);
  if (peerIp === null) return peer.slice(0, MAX_NAME_CHARS);
  const trusted = (ip: bigint) => trustedProxies.some((r) => inRange(ip, r));
  if (!forwardedFor || !trustedProxies.length || !trusted(peerIp)) return addressKey(peerIp);
  const hops = forwardedFor.split(",");
  let nearest = peerIp;
  for (let i = hops.length - 1; i >= 0 && i >= hops.length - MAX_HOPS; i--) {
    const hop = hops[i]!.trim();
    if (!hop) continue;
    const ip = parseHop(hop);
    if (ip === null) return hop.slice(0, MAX_NAME_CHARS);
    if (!trusted(ip)) return addressKey(ip);
    nearest = ip;
  }
  // Every hop is a trusted proxy: the farthest one is the client.
  return addressKey(nearest);
}

/** One X-Forwarded-For entry: an address, possibly with a port (`1.2.3.4:5678`, `[2001:db8::1]:443`). */
function parseHop(hop: string): bigint | null {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return parseIp(bracketed[1]!);
  const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  if (v4WithPort) return parseIPv4(v4WithPort[1]!);
  return parseIp(hop);
}

/** IPv4 as a.b.c.d; IPv6 as its /64 (one host gets a whole /64, so single addresses cost nothing to change). */
function addressKey(ip: bigint): string {
  if (isIPv4(ip)) return formatIPv4(ip);
  const groups: string[] = [];
  for (let shift = 112n; shift >= 64n; shift -= 16n) groups.push(((ip >> shift) & 0xffffn).toString(16));
  return `${groups.join(":")}::/64`;
}
